# Two gloo processes on CPU with a 5 s collective timeout: rank 1 skips the metric
# all_reduce at the end of the epoch (it is inside an `if rank == 0:` block by mistake),
# so rank 0 waits in the collective until the timeout fires.
import datetime
import os
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29634")
    dist.init_process_group("gloo", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=5))
    torch.manual_seed(rank)
    correct = torch.tensor([float(torch.randint(0, 100, ()).item())])
    if rank == 0:
        print("epoch 0 done, reducing accuracy", flush=True)
        dist.all_reduce(correct)
        print(f"accuracy {correct.item() / 200:.3f}", flush=True)
    else:
        time.sleep(8)  # rank 1 is still alive, just not in the collective


if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
