# The dataset path is wrong (data was not downloaded / mounted): a plain FileNotFoundError.
import numpy as np
import torch
from torch.utils.data import Dataset


class CsvData(Dataset):
    def __init__(self, path):
        self.rows = np.loadtxt(path, delimiter=",")

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return torch.from_numpy(self.rows[i])


print("Preparing datasets...", flush=True)
train = CsvData("data/processed/train.csv")
