# A two-process gloo job where every rank gets the same malformed batch.
import sys

import torch
import torch.distributed as dist
import torch.nn as nn


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    model = nn.parallel.DistributedDataParallel(nn.Linear(16, 4))
    features = 12
    print(f"rank {rank}: starting", file=sys.stderr, flush=True)
    out = model(torch.randn(8, features))
    out.sum().backward()
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
