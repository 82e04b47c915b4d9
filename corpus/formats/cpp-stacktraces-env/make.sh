#!/bin/sh
# Runs script.py with TORCH_SHOW_CPP_STACKTRACES=1 (Debian python3-torch 1.13.1, CPU, Python 3.11).
set -u
cd "$(dirname "$0")"
TORCH_SHOW_CPP_STACKTRACES=1 /usr/bin/python3 script.py > log.txt 2>&1
exit 0
