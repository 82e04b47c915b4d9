#!/bin/sh
# Assembles log.txt from a real run of program.py (Debian python3-torch 1.13.1): a status line followed by
# the traceback with each newline replaced by the two characters "\n" (one physical line).
set -eu
cd "$(dirname "$0")"
{
  printf 'job 4711 state=FAILED exit=1 error="'
  /usr/bin/python3 program.py 2>&1 | awk 'BEGIN { ORS = "" } { if (NR > 1) print "\\n"; print }' || true
  printf '"\n'
} > log.txt
