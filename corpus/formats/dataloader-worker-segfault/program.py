# A native crash inside a DataLoader worker (here a NULL read through ctypes, as a broken image decoder
# would do). faulthandler in the worker prints its Python stack; the main process then reports
# "DataLoader worker (pid N) is killed by signal: Segmentation fault."
import ctypes
import faulthandler

import torch
from torch.utils.data import DataLoader, Dataset


def decode(i):
    if i == 6:
        return ctypes.string_at(0)
    return torch.randn(3, 8, 8)


class Images(Dataset):
    def __len__(self):
        return 32

    def __getitem__(self, i):
        return decode(i)


def init_worker(worker_id):
    faulthandler.enable()


if __name__ == "__main__":
    loader = DataLoader(Images(), batch_size=4, num_workers=2, worker_init_fn=init_worker)
    for step, batch in enumerate(loader):
        print(f"step {step}: {tuple(batch.shape)}", flush=True)
