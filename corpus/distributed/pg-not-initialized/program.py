# A training script shared between single-process and distributed runs asks for its rank
# (to decide who logs) before init_process_group has been called on this code path.
import torch
import torch.distributed as dist

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
print("building logger", flush=True)
is_main = dist.get_rank() == 0
