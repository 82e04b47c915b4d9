#!/bin/sh
# Runs program.py (Debian python3-torch 1.13.1, CPU) as the command of a non-interactive bash, which
# reports the SIGKILL with its own "Killed" line, all captured in log.txt.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
bash -c '/usr/bin/python3 program.py; true' > log.txt 2>&1
exit 0
