# Two gloo processes on CPU fine-tune a small classifier. The freezing of the backbone is
# decided from an environment-like per-rank setting that only rank 0 sees ("linear probe"),
# so rank 0 hands DDP only the head's trainable parameters and rank 1 hands it all of them;
# DDP registers only parameters that require grad, and its construction check fails.
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def worker(rank, world):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29645")
    dist.init_process_group("gloo", rank=rank, world_size=world)
    backbone = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.Conv2d(16, 32, 3), nn.ReLU(),
                             nn.AdaptiveAvgPool2d(1), nn.Flatten())
    model = nn.Sequential(backbone, nn.Linear(32, 10))
    linear_probe = {0: True, 1: False}[rank]
    if linear_probe:
        for p in backbone.parameters():
            p.requires_grad_(False)
    model = DDP(model)
    print(f"rank {rank}: ready", flush=True)


if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
