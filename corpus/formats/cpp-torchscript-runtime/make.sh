#!/bin/sh
# Builds program.cc against Debian's libtorch-dev 1.13 (../cpp_case.sh), runs it
# under bash (which adds its own "Aborted" line) on the module that export.py saved, and keeps what it printed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cpp_case.sh"
cd "$build/out"
/usr/bin/python3 "$here/export.py" "$build/model.pt"
bash -c './program "$0"' "$build/model.pt" > "$here/log.txt" 2>&1 || true
