#!/bin/sh
# Executes the notebook with nbconvert --allow-errors (Debian python3-nbconvert 6.5.3, ipykernel 6.17,
# python3-torch 1.13.1) and keeps the executed .ipynb itself as the log: the error is stored as a JSON
# output {"output_type": "error", "ename", "evalue", "traceback": [ANSI-coloured lines]}.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
/usr/bin/python3 "$here/make_notebook.py"
/usr/bin/python3 -m nbconvert --to notebook --execute --allow-errors --output executed.ipynb notebook.ipynb > nbconvert.log 2>&1
cp executed.ipynb "$here/log.txt"
exit 0
