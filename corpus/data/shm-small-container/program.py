# Reproduces a container whose /dev/shm is tiny (Docker's default is 64 MB): the script
# re-runs itself in a private mount namespace with a 2 MB /dev/shm (needs root; nothing
# outside this process sees the mount). Each batch of 8 x 3x128x128 float images is
# 1.5 MB, which workers must place in shared memory to hand it to the main process.
import os
import sys

if os.environ.get("SMALL_SHM") != "1":
    os.environ["SMALL_SHM"] = "1"
    cmd = "mount -t tmpfs -o size=2m tmpfs /dev/shm && exec /usr/bin/python3 " + " ".join(sys.argv)
    os.execvp("unshare", ["unshare", "-m", "sh", "-c", cmd])

import torch
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class Images(Dataset):
    def __len__(self):
        return 256

    def __getitem__(self, idx):
        return torch.full((3, 128, 128), float(idx)), idx % 10


loader = DataLoader(Images(), batch_size=8, num_workers=2)
for step, (x, y) in enumerate(loader):
    print(f"step {step} batch {tuple(x.shape)}", flush=True)
