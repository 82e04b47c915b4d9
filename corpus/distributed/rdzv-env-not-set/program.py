# A script written for torchrun (init_method="env://") started with plain `python`, so none
# of the variables the launcher would export (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE)
# exist.
import os

import torch
import torch.distributed as dist

for var in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK"):
    os.environ.pop(var, None)
torch.manual_seed(0)
print("Initializing distributed backend: gloo", flush=True)
dist.init_process_group(backend="gloo", init_method="env://")
