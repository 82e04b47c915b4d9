# Two gloo processes on CPU. A subgroup for logging is created with dist.new_group(), but
# only on rank 0 (inside an `if rank == 0:` block). new_group must be called by every
# rank of the job, even ranks that are not members, so rank 0 waits at the group's
# start-up barrier for a rank that never comes.
import datetime
import os
import time

import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29640")
    dist.init_process_group("gloo", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=5))
    if rank == 0:
        print("rank 0: creating logging group", flush=True)
        log_group = dist.new_group(ranks=[0], timeout=datetime.timedelta(seconds=5))
    else:
        time.sleep(8)


if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
