# Rank 1 is launched with a MASTER_PORT that does not match rank 0's (a typo in the
# launch script); nothing listens there, and the store client gives up after the timeout.
import datetime
import os

import torch.distributed as dist

os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29683", WORLD_SIZE="2", RANK="1")
print("rank 1: connecting to 127.0.0.1:29683", flush=True)
dist.init_process_group("gloo", init_method="env://", timeout=datetime.timedelta(seconds=5))
