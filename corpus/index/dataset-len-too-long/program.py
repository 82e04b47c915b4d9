import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

rng = np.random.default_rng(0)


class CsvDataset(Dataset):
    def __init__(self):
        self.rows = rng.normal(size=(100, 4)).astype(np.float32)

    def __len__(self):
        return len(self.rows) + 1

    def __getitem__(self, i):
        row = self.rows[i]
        return torch.from_numpy(row[:3]), torch.tensor(row[3])


loader = DataLoader(CsvDataset(), batch_size=25, shuffle=False)
for step, (x, y) in enumerate(loader):
    print(f"batch {step}: {tuple(x.shape)}")
