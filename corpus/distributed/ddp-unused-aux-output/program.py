# DDP (gloo, 2 CPU processes): forward() returns (logits, aux_logits) but the training
# loop only puts the main logits into the loss, so the auxiliary classifier's parameters
# never receive gradients.
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class WithAux(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten())
        self.fc = nn.Linear(16, 10)
        self.aux_fc = nn.Linear(16, 10)

    def forward(self, x):
        f = self.features(x)
        return self.fc(f), self.aux_fc(f)


def worker(rank, world):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29633")
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    model = DDP(WithAux())
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for epoch in range(2):
        for it in range(2):
            x, y = torch.randn(8, 1, 12, 12), torch.randint(0, 10, (8,))
            logits, aux = model(x)
            loss = nn.functional.cross_entropy(logits, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if rank == 0:
                print(f"Epoch {epoch} iter {it}: loss {loss.item():.3f}", flush=True)


if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
