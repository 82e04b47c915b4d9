# A lambda used as a transform in a Dataset; worker processes started with the 'spawn'
# method (the default on macOS and Windows) must pickle the dataset, and lambdas cannot be.
import torch
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class Tabular(Dataset):
    def __init__(self, transform):
        self.rows = torch.randn(100, 8)
        self.transform = transform

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, idx):
        return self.transform(self.rows[idx])


if __name__ == "__main__":
    ds = Tabular(transform=lambda r: (r - r.mean()) / (r.std() + 1e-6))
    loader = DataLoader(ds, batch_size=10, num_workers=2, multiprocessing_context="spawn")
    for batch in loader:
        print(batch.shape)
