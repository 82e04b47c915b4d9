#!/bin/sh
# Assembles log.txt from a real run of program.py (Debian python3-torch 1.13.1) in journalctl's default
# short format, "Mar 02 10:15:31 HOST IDENT[PID]: line", followed by systemd's own unit-failure lines.
set -eu
cd "$(dirname "$0")"
{
  echo 'Mar 02 10:15:30 infer-01 systemd[1]: Started infer.service - Image preview service.'
  /usr/bin/python3 program.py 2>&1 | sed 's/^/Mar 02 10:15:31 infer-01 python3[48211]: /' || true
  echo 'Mar 02 10:15:31 infer-01 systemd[1]: infer.service: Main process exited, code=exited, status=1/FAILURE'
  echo "Mar 02 10:15:31 infer-01 systemd[1]: infer.service: Failed with result 'exit-code'."
} > log.txt
