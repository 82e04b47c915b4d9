#!/bin/sh
# Assembles log.txt as a GitHub Actions step's raw log: "##[group]Run ..." header lines, then the real
# output of `python3 test_export.py` (Debian python3-torch 1.13.1), every line prefixed with the runner's
# timestamp "2024-03-02T10:15:31.1234567Z " (7 fractional digits), and the runner's closing
# "##[error]Process completed with exit code 1." line.
set -eu
cd "$(dirname "$0")"
{
  echo '##[group]Run python test_export.py'
  echo 'python test_export.py'
  echo 'shell: /usr/bin/bash -e {0}'
  echo '##[endgroup]'
  /usr/bin/python3 test_export.py 2>&1 || true
  echo '##[error]Process completed with exit code 1.'
} | awk '{ printf "2024-03-02T10:15:%02d.%07dZ %s\n", 31 + int(NR / 10), 1234567 + NR * 811, $0 }' > log.txt
