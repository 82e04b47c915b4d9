import torch
from torch.utils.data import DataLoader, Dataset


class LabelledImages(Dataset):
    def __init__(self):
        g = torch.Generator().manual_seed(0)
        self.images = torch.randn(40, 3, 8, 8, generator=g)
        self.labels = torch.arange(40) % 5
        self.label_names = torch.arange(4)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.images[i], self.label_names[self.labels[i]]


if __name__ == "__main__":
    loader = DataLoader(LabelledImages(), batch_size=8, num_workers=2)
    for x, y in loader:
        print(x.shape, y)
