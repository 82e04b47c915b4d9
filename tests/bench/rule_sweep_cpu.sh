#!/bin/bash
# CPU time per byte against the number of rules (issue 15: "flat from 50 to 1000 rules") on the machine
# it runs on: with AVX-512 that is the scanner's AVX-512 path, which valgrind cannot run, so
# rule_sweep_counts.sh (callgrind, the AVX2 path) cannot count it.
#
# For each rule count N (make_rulesets.py's sets, as rule_sweep_counts.sh uses) and each input kind
# (gen_kinds.py's logs at SIZE bytes), the task-clock (`perf stat`) of `triage --no-bundled --rules rN
# --format json --threads 1 LOG` and of the same on an empty file, every (kind, N) once per round, ROUNDS rounds
# interleaved (a shared VM's load drifts; interleaving makes the drift hit every command alike). Printed
# per kind and N: the median and least task-clock, and the CPU per byte with the empty file's median
# taken out over the smallest N's (by the medians, and by the least rounds). Asserts nothing.
# One thread: with the metric series read beside the scan (the default on a large log: Note: [Metrics
# beside the scan] in engine/src/diagnose/engine.cc), the second thread spins while it waits for the
# next piece, so its CPU time grows with the scan's and would count the rules' cost twice.
#
# usage: tests/bench/rule_sweep_cpu.sh [KIND...]   (kinds: tqdm hf kv web traceback1pct; default all)
#   env: TRIAGE (default build/triage), BENCH_DIR (default /tmp/triage-sweep-cpu), SIZE (bytes per
#        input, default 64 MiB), SWEEP (default "50 1000"), ROUNDS (default 7)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TRIAGE=$(realpath "${TRIAGE:-$ROOT/build/triage}")
DIR=${BENCH_DIR:-/tmp/triage-sweep-cpu}
SIZE=${SIZE:-67108864}
SWEEP=${SWEEP:-"50 1000"}
ROUNDS=${ROUNDS:-7}
KINDS=${*:-tqdm hf kv web traceback1pct}
[ -x "$TRIAGE" ] || { echo "rule_sweep_cpu.sh: no triage binary at $TRIAGE (set TRIAGE)" >&2; exit 2; }
command -v perf > /dev/null || { echo "rule_sweep_cpu.sh: needs perf" >&2; exit 2; }
. "$ROOT/tests/bench/sweep_inputs.sh"
rm -rf "$DIR/cache" && mkdir -p "$DIR/cache" && chmod 700 "$DIR/cache"

# cpu N LOG: the task-clock (ms) of one run. triage exits 1 when it finds nothing (the empty file).
cpu() {
  { env -u TRIAGE_RULES_PATH TRIAGE_CACHE_DIR="$DIR/cache" perf stat -x, -e task-clock \
      "$TRIAGE" --no-bundled --rules "$DIR/rulesets/r$1" --format json --threads 1 "$2" 2>&1 > /dev/null || true; } |
    awk -F, '/task-clock/ { print $1 }'
}
declare -A T
for n in $SWEEP; do cpu "$n" "$DIR/empty.log" > /dev/null; done   # fills each set's rule cache
for ((r = 0; r < ROUNDS; r++)); do
  for k in empty $KINDS; do
    log=$LOGS/$k.log
    [ "$k" = empty ] && log=$DIR/empty.log
    for n in $SWEEP; do T[$k,$n]="${T[$k,$n]:-} $(cpu "$n" "$log")"; done
  done
done
med() { tr ' ' '\n' <<< "$1" | grep . | sort -g | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }'; }
least() { tr ' ' '\n' <<< "$1" | grep . | sort -g | head -1; }

echo "triage: $TRIAGE; rule sets: $SWEEP (make_rulesets.py); inputs: gen_kinds.py, $SIZE bytes each; $ROUNDS interleaved rounds"
echo "cpu: $(lscpu | awk -F: '/Model name/ { gsub(/^ +/, "", $2); print $2 }'), avx512f: $(grep -qw avx512f /proc/cpuinfo && echo yes || echo no); load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-14s %6s %18s %22s %22s\n' input rules "ms median (least)" "per byte / first N" "least rounds / first N"
for k in empty $KINDS; do
  first_m=; first_l=
  for n in $SWEEP; do
    m=$(med "${T[$k,$n]}"); l=$(least "${T[$k,$n]}")
    em=$(med "${T[empty,$n]}"); el=$(least "${T[empty,$n]}")
    if [ "$k" = empty ]; then
      printf '%-14s %6s %18s\n' "$k" "$n" "$(printf '%.2f (%.2f)' "$m" "$l")"
      continue
    fi
    pm=$(awk -v a="$m" -v b="$em" 'BEGIN { print a - b }'); pl=$(awk -v a="$l" -v b="$el" 'BEGIN { print a - b }')
    [ -n "$first_m" ] || { first_m=$pm; first_l=$pl; }
    printf '%-14s %6s %18s %22s %22s\n' "$k" "$n" "$(printf '%.2f (%.2f)' "$m" "$l")" \
      "$(awk -v a="$pm" -v b="$first_m" 'BEGIN { printf "%.3fx", a / b }')" \
      "$(awk -v a="$pl" -v b="$first_l" 'BEGIN { printf "%.3fx", a / b }')"
  done
done
