#!/bin/sh
# Runs program.py under pdb and types: continue, where, print the dtype of `input`, quit (twice: pdb restarts).
set -u
cd "$(dirname "$0")"
printf 'c\nw\np input.dtype\nq\nq\n' | /usr/bin/python3 -m pdb program.py > log.txt 2>&1
exit 0
