#!/bin/sh
# Builds program.cc against Debian's libtorch-dev 1.13 (../cpp_case.sh), runs it
# under bash (which adds its own "Aborted" line), and keeps everything it printed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cpp_case.sh"
cd "$build/out"
bash -c './program' > "$here/log.txt" 2>&1 || true
