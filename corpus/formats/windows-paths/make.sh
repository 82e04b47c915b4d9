#!/bin/sh
# Assembles log.txt from a real run of train.py (Debian python3-torch 1.13.1): only the paths inside
# File "..." lines change: the case dir becomes C:\Users\alice\projects\digits, dist-packages becomes
# a conda env's Lib\site-packages, and / becomes \ inside those paths.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
/usr/bin/python3 train.py 2>&1 | /usr/bin/python3 -c '
import re, sys
here = sys.argv[1]
def fix(m):
    path = m.group(1)
    path = path.replace(here, "C:/Users/alice/projects/digits")
    path = path.replace("/usr/lib/python3/dist-packages", "C:/Users/alice/miniconda3/envs/torch/Lib/site-packages")
    return "File \"" + path.replace("/", "\\") + "\""
for line in sys.stdin:
    sys.stdout.write(re.sub(r"File \"([^\"]+)\"", fix, line))
' "$here" > log.txt || true
