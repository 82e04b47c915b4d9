#!/bin/sh
# Runs program.py (Debian python3-torch 1.13.1, CPU): the traceback is real; the wrapper lines are printed
# by program.py in ComfyUI's wording (execution.py / main.py, 2023).
set -u
cd "$(dirname "$0")"
/usr/bin/python3 program.py > log.txt 2>&1
exit 0
