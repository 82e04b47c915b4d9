# __getitem__ returns None for samples it fails to decode; default_collate cannot batch None.
import torch
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
BLOBS = [bytes([i % 256]) * 16 for i in range(24)]
BLOBS[9] = b""  # an empty file on disk


class Blobs(Dataset):
    def __len__(self):
        return len(BLOBS)

    def __getitem__(self, idx):
        raw = BLOBS[idx]
        if not raw:
            return None  # "skip" a bad file
        return torch.tensor(list(raw), dtype=torch.float32) / 255.0


for i, batch in enumerate(DataLoader(Blobs(), batch_size=4)):
    print(i, batch.mean().item())
