#!/bin/sh
# torchrun (python3 -m torch.distributed.run, Debian python3-torch 1.13.1) with one CPU process and
# --redirects 1 --tee 2 only because torchrun 1.13 on Python 3.11 cannot parse the
# values "0" and "3" (see ../torchrun-tee-one-rank/make.sh).
set -u
cd "$(dirname "$0")"
logdir=$(mktemp -d)
/usr/bin/python3 -m torch.distributed.run --nproc_per_node 1 --redirects 1 --tee 2 --log_dir "$logdir" \
  --master_port 29533 train.py > log.txt 2>&1
rm -rf "$logdir"
exit 0
