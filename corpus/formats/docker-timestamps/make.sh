#!/bin/sh
# Assembles log.txt from a real run of program.py (Debian python3-torch 1.13.1): every line gets the
# `docker logs --timestamps` prefix "2024-03-02T10:15:31.NNNNNNNNNZ " (nanoseconds increase per line).
set -eu
cd "$(dirname "$0")"
/usr/bin/python3 program.py 2>&1 | awk '{ printf "2024-03-02T10:15:31.%09dZ %s\n", 482113000 + NR * 1377, $0 }' > log.txt || true
