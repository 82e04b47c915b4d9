# DDP (gloo, 2 CPU processes) with TORCH_DISTRIBUTED_DEBUG=DETAIL: a mixture-of-experts
# style model routes every batch through one expert only, so the other expert's
# parameters get no gradient in an iteration and the reducer never finishes.
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Router(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Linear(10, 10)
        self.expert_text = nn.Linear(10, 2)
        self.expert_image = nn.Linear(10, 2)

    def forward(self, x, modality):
        h = torch.tanh(self.stem(x))
        return self.expert_text(h) if modality == "text" else self.expert_image(h)


def worker(rank, world):
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:29632", rank=rank, world_size=world)
    torch.manual_seed(rank)
    model = DDP(Router())
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(4):
        out = model(torch.randn(4, 10), "text")
        loss = out.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"[rank {rank}] step {step} loss={loss.item():.4f}", flush=True)


if __name__ == "__main__":
    os.environ["TORCH_DISTRIBUTED_DEBUG"] = "DETAIL"
    mp.spawn(worker, args=(2,), nprocs=2)
