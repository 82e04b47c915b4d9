# Rank 1 of a two-process job is SIGKILLed (what the kernel OOM killer does to the biggest process):
# it leaves no Python traceback; torchrun's summary reports the signal.
import os
import signal
import sys

import torch
import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    cache = []
    for step in range(3):
        cache.append(torch.randn(256, 256))
        print(f"rank {rank} step {step}: cached {len(cache)}", file=sys.stderr, flush=True)
        if rank == 1 and step == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
