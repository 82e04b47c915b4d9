# A healthy 2-process DDP run (gloo, CPU) with TORCH_DISTRIBUTED_DEBUG=INFO: the log shows
# DDP's configuration dump, which mentions find_unused_parameters, and training succeeds.
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def worker(rank, world):
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:29638", rank=rank, world_size=world)
    torch.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 1)))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    torch.manual_seed(rank)
    for step in range(3):
        x = torch.randn(16, 6)
        loss = (model(x) - x.sum(1, keepdim=True)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    dist.barrier()
    if rank == 0:
        print(f"rank 0: finished 3 steps, last loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    os.environ["TORCH_DISTRIBUTED_DEBUG"] = "INFO"
    mp.spawn(worker, args=(2,), nprocs=2)
