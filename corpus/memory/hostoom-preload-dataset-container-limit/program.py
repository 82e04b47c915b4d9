# The Dataset preloads every sample into one tensor in __init__. The job runs with a 3 GiB
# address-space limit (set here with setrlimit to stand in for a container memory limit),
# and the preload of 1.2M x 3 x 32 x 32 float32 images (~14.7 GB) cannot be allocated.
import resource
import torch
from torch.utils.data import Dataset

limit = 3 * 1024 ** 3
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
torch.manual_seed(0)


class PreloadedImages(Dataset):
    def __init__(self, n):
        print(f"preloading {n} images into RAM ...")
        self.images = torch.empty(n, 3, 32, 32)
        self.labels = torch.zeros(n, dtype=torch.long)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.images[i], self.labels[i]


train = PreloadedImages(1_200_000)
