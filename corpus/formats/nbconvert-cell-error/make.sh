#!/bin/sh
# Executes a notebook headless with nbconvert (Debian python3-nbconvert 6.5.3, nbclient 0.7.2, ipykernel
# 6.17, python3-torch 1.13.1), as a CI job that runs notebooks does; the failing cell aborts the run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
/usr/bin/python3 "$here/make_notebook.py"
/usr/bin/python3 -m nbconvert --to notebook --execute notebook.ipynb > "$here/log.txt" 2>&1
exit 0
