#!/bin/sh
# Assembles log.txt from a real run of program.py (Debian python3-torch 1.13.1): all but its last line.
set -eu
cd "$(dirname "$0")"
/usr/bin/python3 program.py 2>&1 | head -n -1 > log.txt || true
