#!/bin/sh
# Re-runs every make.sh under corpus/formats (the cases whose log needs more than `python3 program.py`;
# corpus/regen.sh handles those). Review the result with `git diff`: pids, timestamps, addresses, temp
# paths and progress-bar rates change on every run.
#   corpus/formats/regen.sh [CASE...]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -eq 0 ]; then
  set -- $(cd "$here" && ls -d */ | tr -d /)
fi
status=0
for case in "$@"; do
  script="$here/$case/make.sh"
  [ -f "$script" ] || continue
  if sh "$script"; then echo "ran     $case"; else echo "failed  $case" >&2; status=1; fi
done
exit $status
