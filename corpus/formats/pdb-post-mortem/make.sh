#!/bin/sh
# Runs script.py under pdb and types: continue, where, print the dtype of `input`, quit (twice: pdb restarts).
set -u
cd "$(dirname "$0")"
printf 'c\nw\np input.dtype\nq\nq\n' | /usr/bin/python3 -m pdb script.py > log.txt 2>&1
exit 0
