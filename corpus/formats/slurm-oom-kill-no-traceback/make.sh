#!/bin/sh
# log.txt = the real output of program.py (Debian python3-torch 1.13.1, CPU), followed by the lines
# slurmstepd and srun print when the job's cgroup OOM killer has killed a task (formatted: Slurm 21.08+
# wording; no SLURM cluster here). No Python traceback: the process got SIGKILL.
set -eu
cd "$(dirname "$0")"
{
  /usr/bin/python3 program.py 2>&1 || true
  cat <<'TEXT'
slurmstepd: error: Detected 1 oom-kill event(s) in StepId=123457.0. Some of your processes may have been killed by the cgroup out-of-memory handler.
srun: error: cpu-node-12: task 0: Out Of Memory
TEXT
} > log.txt
