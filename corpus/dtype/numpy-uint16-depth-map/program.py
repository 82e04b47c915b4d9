import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

# Depth maps are stored as 16-bit PNGs (millimetres); here their decoded arrays, which come out
# as uint16 from PIL/OpenCV, are handed to torch.from_numpy unchanged.
class DepthSet(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        depth = (np.random.rand(8, 8) * 5000).astype(np.uint16)
        return torch.from_numpy(depth)

for batch in DataLoader(DepthSet(), batch_size=2):
    print(batch.shape)
