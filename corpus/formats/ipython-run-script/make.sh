#!/bin/sh
# Types `%run train.py` into Debian's IPython (8.5, on /usr/bin/python3) without colours.
set -u
cd "$(dirname "$0")"
printf '%%run train.py\n' | /usr/bin/ipython3 --simple-prompt --colors=NoColor --no-banner > log.txt 2>&1
exit 0
