# A training epoch with a tqdm progress bar (carriage-return updates, as a terminal log
# captures them) during which one DataLoader worker is SIGKILLed, as the kernel OOM killer
# does when workers each hold a large in-memory cache.
import os
import signal
import sys

import torch
from torch.utils.data import DataLoader, Dataset
from tqdm import tqdm

torch.manual_seed(0)


class CachedFrames(Dataset):
    def __init__(self):
        self.cache = {}

    def __len__(self):
        return 96

    def __getitem__(self, idx):
        self.cache[idx] = torch.randn(3, 16, 16)  # grows in every worker
        if idx == 61:
            os.kill(os.getpid(), signal.SIGKILL)
        return self.cache[idx], idx % 4


model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(768, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
loader = DataLoader(CachedFrames(), batch_size=8, num_workers=2)
bar = tqdm(loader, desc="Epoch 1/10", file=sys.stdout, mininterval=0, ncols=90,
           bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{postfix}]")
for x, y in bar:
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    bar.set_postfix(loss=f"{loss.item():.4f}")
