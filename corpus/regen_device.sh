#!/usr/bin/env bash
# Re-runs the corpus cases that need a GPU and PyTorch 2.x (label.yaml `runs_on: device`) and rewrites
# their log.txt. Meant for the project's GPU machine (the `device` tool); regen.sh skips these cases.
#
#   corpus/regen_device.sh [DIR..]     run the named case folders (default: every runs_on: device case)
#
# Each case runs from its own folder with a 120 s limit: `python3 program.py`, or the command in the
# folder's `command` file (torchrun launches). Files a program writes beside itself (checkpoints,
# output folders) are removed afterwards; only log.txt is kept. Cases run four at a time.
set -uo pipefail

corpus_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ $# -gt 0 ]]; then
  cases=("$@")
else
  mapfile -t cases < <(grep -l '^runs_on:[[:space:]]*device[[:space:]]*$' "$corpus_dir"/*/*/label.yaml | xargs -r -n1 dirname)
fi

run_one() {
  local dir="$1" cmd rc
  cmd="python3 program.py"
  [[ -f "$dir/command" ]] && cmd="$(cat "$dir/command")"
  (cd "$dir" && timeout 120 bash -c "$cmd" >log.txt 2>&1)
  rc=$?
  (cd "$dir" && find . -mindepth 1 -maxdepth 1 ! -name program.py ! -name command ! -name log.txt \
     ! -name label.yaml -exec rm -rf {} +)
  echo "rc=$rc $(basename "$dir")"
}
export -f run_one
printf '%s\n' "${cases[@]}" | xargs -P 4 -I{} bash -c 'run_one "$@"' _ {}
