# The dataset keeps a threading.Lock (guarding a cache); with the spawn start method each
# worker needs a pickled copy of the dataset, and a lock object cannot be pickled.
import threading

import torch
from torch.utils.data import DataLoader, Dataset


class CachedTokens(Dataset):
    def __init__(self):
        torch.manual_seed(0)
        self.tokens = torch.randint(0, 1000, (64, 32))
        self.cache = {}
        self.lock = threading.Lock()

    def __len__(self):
        return len(self.tokens)

    def __getitem__(self, idx):
        with self.lock:
            if idx not in self.cache:
                self.cache[idx] = self.tokens[idx]
        return self.cache[idx]


if __name__ == "__main__":
    torch.multiprocessing.set_start_method("spawn")
    loader = DataLoader(CachedTokens(), batch_size=8, num_workers=2)
    print(f"epoch 1/3, {len(loader)} batches", flush=True)
    for x in loader:
        print(x.shape)
