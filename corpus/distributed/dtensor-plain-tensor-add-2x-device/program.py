import os
import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import Shard, distribute_tensor

torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
mesh = init_device_mesh("cuda", (int(os.environ["WORLD_SIZE"]),))
weight = distribute_tensor(torch.randn(8, 8, device="cuda"), mesh, [Shard(0)])
bias = torch.randn(8, 8, device="cuda")
print((weight + bias).shape)
dist.destroy_process_group()
