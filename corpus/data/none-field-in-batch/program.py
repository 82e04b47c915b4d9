import csv
import io
import torch
from torch.utils.data import DataLoader, Dataset

# A CSV with an empty age field; the parser returns None for it and the batch mixes numbers and None.
TEXT = "age,income\n34,52000\n,61000\n29,48000\n"

def parse(v):
    return float(v) if v else None

class Rows(Dataset):
    def __init__(self):
        self.rows = [{k: parse(v) for k, v in r.items()} for r in csv.DictReader(io.StringIO(TEXT))]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        r = self.rows[i]
        return [r["age"], r["income"]]

def collate(batch):
    return torch.tensor(batch)

for x in DataLoader(Rows(), batch_size=3, collate_fn=collate):
    print(x)
