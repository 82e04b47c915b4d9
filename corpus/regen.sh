#!/usr/bin/env bash
# Re-runs every corpus/*/*/program.py with Debian's python3-torch and rewrites its log.txt.
#
#   corpus/regen.sh                 regenerate every `real` case
#   corpus/regen.sh --check         only report the cases whose log would change (exit 1 if any)
#   corpus/regen.sh [--check] DIR.. limit to these case folders
#
# Cases whose label.yaml provenance is not `real` are skipped: their logs were formatted or
# assembled by hand and no program reproduces them. So are `runs_on: device` cases (PyTorch 2.x on a
# GPU): corpus/regen_device.sh reruns those on the project's GPU machine. Each program runs from its own folder (so the
# traceback paths are the ones already in the logs) with a 60 s limit. A program's own exit status
# is not an error: broken programs are the point; a timeout is.
set -euo pipefail

PYTHON=/usr/bin/python3
TIMEOUT_S=60
corpus_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

check=0
if [[ "${1:-}" == "--check" ]]; then
  check=1
  shift
fi

if [[ $# -gt 0 ]]; then
  cases=("$@")
else
  cases=()
  for program in "$corpus_dir"/*/*/program.py; do
    [[ -e "$program" ]] && cases+=("$(dirname "$program")")
  done
fi

tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT

changed=0 skipped=0 failed=0 total=0
for dir in "${cases[@]}"; do
  if [[ ! -d "$dir" ]]; then
    echo "error   $dir: not a folder" >&2
    failed=$((failed + 1))
    continue
  fi
  dir="$(cd "$dir" && pwd)"
  name="${dir#"$corpus_dir"/}"
  if [[ ! -f "$dir/label.yaml" ]]; then
    echo "error   $name: no label.yaml" >&2
    failed=$((failed + 1))
    continue
  fi
  if ! grep -Eq '^provenance:[[:space:]]*real[[:space:]]*$' "$dir/label.yaml"; then
    skipped=$((skipped + 1))
    continue
  fi
  if grep -Eq '^runs_on:[[:space:]]*device[[:space:]]*$' "$dir/label.yaml"; then
    skipped=$((skipped + 1))   # PyTorch 2.x on a GPU: corpus/regen_device.sh, on the device machine
    continue
  fi
  if [[ ! -f "$dir/program.py" ]]; then
    echo "error   $name: provenance real but no program.py" >&2
    failed=$((failed + 1))
    continue
  fi
  total=$((total + 1))
  rc=0
  (cd "$dir" && timeout "$TIMEOUT_S" "$PYTHON" program.py >"$tmp" 2>&1) || rc=$?
  if [[ $rc -eq 124 ]]; then
    echo "timeout $name: ran past ${TIMEOUT_S}s; log.txt left as it was" >&2
    failed=$((failed + 1))
    continue
  fi
  if [[ -f "$dir/log.txt" ]] && cmp -s "$tmp" "$dir/log.txt"; then
    continue
  fi
  changed=$((changed + 1))
  if [[ $check -eq 1 ]]; then
    echo "differs $name"
  else
    cp "$tmp" "$dir/log.txt"
    echo "updated $name"
  fi
done

echo "$total real cases run, $changed changed, $skipped not real (skipped), $failed failed" >&2
if [[ $failed -gt 0 ]]; then exit 2; fi
if [[ $check -eq 1 && $changed -gt 0 ]]; then exit 1; fi
exit 0
