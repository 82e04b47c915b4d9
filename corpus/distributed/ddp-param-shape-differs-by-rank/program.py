# Two gloo processes on CPU build the same classifier, but each reads its vocabulary size
# from its own data shard, so the embedding tables differ in rows across ranks; DDP's
# construction-time check compares the parameter shapes and fails.
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Classifier(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab, 64)
        self.head = nn.Linear(64, 4)

    def forward(self, ids):
        return self.head(self.emb(ids))


def worker(rank, world):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29644")
    dist.init_process_group("gloo", rank=rank, world_size=world)
    shard = [f"tok{i}" for i in range(1000 + 37 * rank)]
    vocab = {t: i for i, t in enumerate(sorted(set(shard)))}
    model = DDP(Classifier(len(vocab)))
    print(f"rank {rank}: vocab {len(vocab)}", flush=True)


if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
