# An exception inside Dataset.__getitem__ in a worker process: the DataLoader re-raises it in the
# main process as "Caught RuntimeError in DataLoader worker process 0" with the worker's traceback inside.
import torch
from torch.utils.data import DataLoader, Dataset


class Patches(Dataset):
    def __init__(self):
        self.images = [torch.randn(3, 32, 32) for _ in range(8)]

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        image = self.images[i]
        return image.view(3, 16, 16, -1).permute(3, 0, 1, 2).reshape(4, 3, 17, 16)


if __name__ == "__main__":
    loader = DataLoader(Patches(), batch_size=4, num_workers=2)
    for batch in loader:
        print(batch.shape)
