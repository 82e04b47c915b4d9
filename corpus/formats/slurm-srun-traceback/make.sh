#!/bin/sh
# log.txt = the real output of program.py (Debian python3-torch 1.13.1, CPU) as task 3 writes it to the
# job's slurm-123456.out, followed by the lines srun and slurmstepd print when a task exits non-zero and
# the step is torn down (formatted: no SLURM cluster here).
set -eu
cd "$(dirname "$0")"
{
  /usr/bin/python3 program.py 2>&1 || true
  cat <<'TEXT'
srun: error: gpu-node-07: task 3: Exited with exit code 1
srun: launch/slurm: _step_signal: Terminating StepId=123456.0
slurmstepd: error: *** STEP 123456.0 ON gpu-node-07 CANCELLED AT 2024-03-02T10:15:31 ***
srun: Job step aborted: Waiting up to 32 seconds for job step to finish.
TEXT
} > log.txt
