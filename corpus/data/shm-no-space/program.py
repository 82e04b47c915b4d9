# Reproduces a container with a 1 MB /dev/shm (the script re-runs itself in a private
# mount namespace; needs root; nothing outside this process sees the mount). The loop
# keeps every batch it receives (a cache of features), so the shared-memory blocks the
# workers wrote them into are never freed and /dev/shm fills up.
import os
import sys

if os.environ.get("SMALL_SHM") != "1":
    os.environ["SMALL_SHM"] = "1"
    cmd = "mount -t tmpfs -o size=1m tmpfs /dev/shm && exec /usr/bin/python3 " + " ".join(sys.argv)
    os.execvp("unshare", ["unshare", "-m", "sh", "-c", cmd])

import torch
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class Features(Dataset):
    def __len__(self):
        return 4096

    def __getitem__(self, idx):
        return torch.full((1024,), float(idx))  # 4 KB per sample


cache = []
loader = DataLoader(Features(), batch_size=1, num_workers=1)  # one 4 KB page per batch
for step, x in enumerate(loader):
    cache.append(x)
    if step % 64 == 0:
        print(f"step {step}: cached {len(cache)} batches", flush=True)
