#!/bin/sh
# torchrun (python3 -m torch.distributed.run, Debian python3-torch 1.13.1) with two CPU gloo processes.
# --tee 2 copies each rank's stderr to the console with a per-rank prefix. torchrun 1.13 on Python 3.11
# cannot parse the values 0 and 3 (Std.from_str returns None: IntFlag iteration skips NONE and the
# composite ALL), so the default --redirects 0 crashes it: --redirects 1 sends stdout to its log dir.
set -u
cd "$(dirname "$0")"
logdir=$(mktemp -d)
/usr/bin/python3 -m torch.distributed.run --nproc_per_node 2 --redirects 1 --tee 2 --log_dir "$logdir" \
  --master_port 29534 train.py > log.txt 2>&1
rm -rf "$logdir"
exit 0
