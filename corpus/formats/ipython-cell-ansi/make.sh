#!/bin/sh
# Feeds cells.ipy to Debian's IPython (8.5, on /usr/bin/python3) one cell per input; keeps its ANSI colours.
set -u
cd "$(dirname "$0")"
/usr/bin/ipython3 --simple-prompt --colors=Linux --no-banner < cells.ipy > log.txt 2>&1
exit 0
