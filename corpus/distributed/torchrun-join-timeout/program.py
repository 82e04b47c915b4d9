# A 2-node torchrun job where only this node was started (the other node's job is stuck in
# a queue): the c10d rendezvous waits for the second node until join_timeout expires.
# This script plays the part of the launch command; train.py is never reached.
import os
import subprocess
import sys
import tempfile

train = os.path.join(tempfile.mkdtemp(), "train.py")
with open(train, "w") as f:
    f.write("print('training')\n")
cmd = [sys.executable, "-m", "torch.distributed.run", "--nnodes=2", "--nproc_per_node=1",
       "--rdzv_backend=c10d", "--rdzv_endpoint=127.0.0.1:29639", "--rdzv_id=job42",
       "--rdzv_conf=join_timeout=5", "--max_restarts=0", train]
print("$ torchrun --nnodes=2 --nproc_per_node=1 --rdzv_backend=c10d "
      "--rdzv_endpoint=127.0.0.1:29639 --rdzv_id=job42 --rdzv_conf=join_timeout=5 train.py",
      flush=True)
sys.exit(subprocess.call(cmd))
