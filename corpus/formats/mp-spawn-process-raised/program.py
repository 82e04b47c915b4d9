# torch.multiprocessing.spawn with two processes; process 1 fails. spawn re-raises in the parent as
# ProcessRaisedException, whose message carries the child's traceback after "-- Process 1 terminated
# with the following error:".
import torch
import torch.multiprocessing as mp
import torch.nn as nn


def worker(rank, world_size):
    model = nn.Embedding(100, 8)
    ids = torch.arange(rank * 60, rank * 60 + 50)
    print(f"rank {rank}/{world_size}: {tuple(model(ids).shape)}", flush=True)


if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2, join=True)
