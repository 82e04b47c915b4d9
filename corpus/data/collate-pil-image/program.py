# The dataset returns PIL images without converting them to tensors (a missing
# ToTensor-style transform); default_collate does not know how to batch PIL images.
import numpy as np
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset

rng = np.random.default_rng(0)


class Photos(Dataset):
    def __init__(self):
        self.arrays = [rng.integers(0, 255, (32, 32, 3), dtype=np.uint8) for _ in range(20)]

    def __len__(self):
        return len(self.arrays)

    def __getitem__(self, idx):
        return Image.fromarray(self.arrays[idx]), idx % 5


loader = DataLoader(Photos(), batch_size=4)
print("Loaded 20 photos; training for 1 epoch", flush=True)
for images, labels in loader:
    print(images.shape)
