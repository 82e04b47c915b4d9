# A second training job is started on a machine where another job (simulated here by a
# plain socket) already listens on MASTER_PORT; rank 0 cannot create the TCP store.
import datetime
import os
import socket

import torch.distributed as dist

PORT = 29636
busy = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
busy.bind(("::", PORT))
busy.listen(1)

os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(PORT))
print(f"launching rank 0 of 2 with MASTER_PORT={PORT}", flush=True)
dist.init_process_group("gloo", rank=0, world_size=2, timeout=datetime.timedelta(seconds=10))
