import os
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.fsdp import fully_shard

dist.init_process_group("nccl")
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
model = nn.Sequential(nn.Linear(32, 32), nn.LayerNorm(32), nn.Linear(32, 8)).cuda()
model[0].half()  # one layer converted by hand
fully_shard(model)
out = model(torch.randn(4, 32, device="cuda"))
print(out.shape)
dist.destroy_process_group()
