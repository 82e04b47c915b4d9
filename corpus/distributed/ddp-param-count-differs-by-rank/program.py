# Two gloo processes on CPU wrap their models in DistributedDataParallel, but rank 1 builds
# its model with an extra hidden layer (the layer count comes from a per-rank config lookup),
# so the ranks hold different numbers of parameters when DDP checks them at construction.
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def build(depth):
    layers = [nn.Linear(16, 32), nn.ReLU()]
    for _ in range(depth - 1):
        layers += [nn.Linear(32, 32), nn.ReLU()]
    layers.append(nn.Linear(32, 2))
    return nn.Sequential(*layers)


def worker(rank, world):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29643")
    dist.init_process_group("gloo", rank=rank, world_size=world)
    depth = {0: 2, 1: 3}[rank]
    model = DDP(build(depth))
    print(f"rank {rank}: model wrapped", flush=True)


if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
