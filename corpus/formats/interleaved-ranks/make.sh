#!/bin/sh
# Assembles log.txt from two real runs of program.py (RANK=0 and RANK=1, Debian python3-torch 1.13.1),
# interleaved line by line (rank 0 first) with no prefix.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
RANK=0 /usr/bin/python3 program.py > "$tmp/out0" 2>&1 || true
RANK=1 /usr/bin/python3 program.py > "$tmp/out1" 2>&1 || true
paste -d '\n' "$tmp/out0" "$tmp/out1" | sed '/^$/d' > log.txt
