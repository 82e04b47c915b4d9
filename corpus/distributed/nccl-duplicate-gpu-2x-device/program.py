import os
import torch
import torch.distributed as dist

dist.init_process_group("nccl")
rank = dist.get_rank()
torch.cuda.set_device(0)  # every rank on the first GPU
t = torch.ones(4, device="cuda") * rank
dist.all_reduce(t)
print(f"rank {rank}: {t.tolist()}")
dist.destroy_process_group()
