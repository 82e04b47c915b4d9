# A worker process that dies without a Python exception (here it sends itself SIGKILL, as the kernel's
# OOM killer would): the main process reports "DataLoader worker (pid N) is killed by signal: Killed."
import os
import signal

import torch
from torch.utils.data import DataLoader, Dataset


class Frames(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        if i == 5:
            os.kill(os.getpid(), signal.SIGKILL)
        return torch.randn(3, 64, 64)


if __name__ == "__main__":
    loader = DataLoader(Frames(), batch_size=4, num_workers=2)
    for step, batch in enumerate(loader):
        print(f"step {step} batch {tuple(batch.shape)}", flush=True)
