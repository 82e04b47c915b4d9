# The job is configured for world_size=2 but only one process is launched (the second
# node never started), so rank 0 waits at the start-up barrier until the timeout.
import datetime
import os

import torch.distributed as dist

os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29637", WORLD_SIZE="2", RANK="0")
print("rank 0: waiting for 1 more process to join", flush=True)
dist.init_process_group("gloo", init_method="env://", timeout=datetime.timedelta(seconds=5))
