#!/bin/sh
# Assembles log.txt from four real runs of program.py (TASK=0..3, Debian python3-torch 1.13.1, CPU) in the
# layout of `srun --label`: each line prefixed with its task id and ": ", tasks interleaved line by line,
# followed by srun's own report of the failed task (formatted: no SLURM cluster here).
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in 0 1 2 3; do
  TASK=$t /usr/bin/python3 program.py > "$tmp/out$t" 2>&1 || true
  sed "s/^/$t: /" "$tmp/out$t" > "$tmp/pre$t"
done
{
  paste -d '\n' "$tmp/pre0" "$tmp/pre1" "$tmp/pre2" "$tmp/pre3" | sed '/^$/d'
  echo 'srun: error: cpu-node-03: task 2: Exited with exit code 1'
} > log.txt
