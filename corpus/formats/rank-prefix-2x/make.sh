#!/bin/sh
# Assembles log.txt from four real runs of program.py (RANK=0..3, Debian python3-torch 1.13.1): each run's
# output gets the "[rankN]: " prefix and the four outputs are interleaved line by line.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for r in 0 1 2 3; do
  RANK=$r /usr/bin/python3 program.py > "$tmp/out$r" 2>&1 || true
  sed "s/^/[rank$r]: /" "$tmp/out$r" > "$tmp/pre$r"
done
paste -d '\n' "$tmp/pre0" "$tmp/pre1" "$tmp/pre2" "$tmp/pre3" | sed '/^$/d' > log.txt
