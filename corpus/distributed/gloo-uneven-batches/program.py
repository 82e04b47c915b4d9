# Two gloo processes on CPU whose data shards have different lengths (rank 0: 5 batches,
# rank 1: 3 batches). Rank 1 finishes its loop and exits; rank 0 then enters the next
# gradient all_reduce alone and the collective fails because its peer is gone.
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29635")
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    shard = [torch.randn(1000) for _ in range(5 if rank == 0 else 3)]
    w = torch.zeros(1000)
    for step, grad in enumerate(shard):
        dist.all_reduce(grad)
        w -= 0.01 * grad / world
        if rank == 0:
            print(f"step {step} |w|={w.norm():.4f}", flush=True)


if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
