import torch
from torch.utils.data import DataLoader, Dataset


class PairedFiles(Dataset):
    def __init__(self):
        # the image folder holds 30 files, the label file lists 32 entries
        self.paths = [f"img_{i:03d}.png" for i in range(30)]
        self.labels = [i % 3 for i in range(32)]

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        path = self.paths[i]
        return torch.full((3, 4, 4), float(len(path))), self.labels[i]


if __name__ == "__main__":
    loader = DataLoader(PairedFiles(), batch_size=8, num_workers=2)
    for x, y in loader:
        print(x.shape, y)
