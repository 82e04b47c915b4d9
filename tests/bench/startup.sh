#!/usr/bin/env bash
# Start-up benchmark: wall time of `triage` on a small real log with all bundled rules loaded.
# Target (issue: foundation): under 50 ms. Prints figures; asserts nothing.
# Usage: tests/bench/startup.sh [path/to/triage] [runs]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-build/triage}
runs=${2:-50}
log=corpus/shape/linear-flattened-conv/log.txt
[ -x "$bin" ] || { echo "build first: $bin not found" >&2; exit 2; }
rules=$("$bin" rules list | wc -l)
echo "triage start-up: $bin on $log ($(wc -l < "$log") lines), $rules bundled rules"
"$bin" "$log" > /dev/null || true   # warm the page cache
if command -v hyperfine > /dev/null; then
  hyperfine -N --warmup 3 --runs "$runs" -i "$bin $log" 2>/dev/null | sed -n '1,4p'
else
  start=$(date +%s%N)
  for _ in $(seq "$runs"); do "$bin" "$log" > /dev/null || true; done
  end=$(date +%s%N)
  echo "mean wall time: $(( (end - start) / runs / 1000 )) us over $runs runs"
fi
# Peak memory of one run.
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f "max RSS: %M KiB" "$bin" "$log" 2>&1 > /dev/null | tail -1
fi
# The engine must not load LibTorch: list the shared libraries of the binary.
if ldd "$bin" | grep -q -i torch; then echo "WARNING: $bin links LibTorch"; else echo "libtorch linked: no"; fi
