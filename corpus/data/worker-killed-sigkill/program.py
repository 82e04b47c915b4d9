# A worker process dies mid-epoch (here it kills itself with SIGKILL, the signal the
# kernel's OOM killer sends), as happens when each worker holds too much memory.
import os
import signal

import torch
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class Images(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, idx):
        if idx == 37:
            os.kill(os.getpid(), signal.SIGKILL)
        return torch.randn(3, 8, 8), idx % 10


model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(192, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(Images(), batch_size=8, num_workers=2)
for step, (x, y) in enumerate(loader):
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}", flush=True)
