#!/bin/bash
# Instructions per byte against the number of rules (issue 15: "flat from 50 to 1000 rules"), counted
# by callgrind. A count does not move with the machine's load, where CPU times on a shared VM swing by
# 10-25% (cpu_time.sh, kinds_throughput.sh), so this is the figure that can say "flat" on its own.
#
# For each rule count N (make_rulesets.py's sets: the first N bundled rules, or every bundled rule plus
# reworded variants past them) and each input kind (gen_kinds.py's logs at SIZE bytes), the
# instructions of `triage --no-bundled --rules rN --format json LOG`, and of the same command on an
# empty file (the start-up: reading the rule cache entry, building the scanner's tables). Printed per
# kind: the count, the instructions per byte with the start-up taken out, and that figure over the
# smallest N's. Asserts nothing.
#
# Valgrind offers no AVX-512, so the counts are those of the scanner's AVX2 path (the one every
# x86-64 machine without AVX-512 runs); the AVX-512 path's CPU time is cpu_time.sh's business.
#
# usage: tests/bench/rule_sweep_counts.sh [KIND...]   (kinds: tqdm hf kv web traceback1pct; default all)
#   env: TRIAGE (default build/triage), BENCH_DIR (default /tmp/triage-sweep-counts), SIZE (bytes per
#        input, default 8 MiB: callgrind runs ~50x slower than the program), SWEEP (default "50 1000")
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TRIAGE=$(realpath "${TRIAGE:-$ROOT/build/triage}")
DIR=${BENCH_DIR:-/tmp/triage-sweep-counts}
SIZE=${SIZE:-8388608}
SWEEP=${SWEEP:-"50 1000"}
KINDS=${*:-tqdm hf kv web traceback1pct}
[ -x "$TRIAGE" ] || { echo "rule_sweep_counts.sh: no triage binary at $TRIAGE (set TRIAGE)" >&2; exit 2; }
command -v valgrind > /dev/null || { echo "rule_sweep_counts.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
. "$ROOT/tests/bench/sweep_inputs.sh"

# count N LOG: callgrind's instruction count of one run. Under valgrind the program's identity is the
# tool's, and it is part of the rule cache's key (Note: [Rule cache]): the first run for a rule set
# fills the cache that later runs read, so every set is run once before it is counted.
# triage exits 1 when it finds nothing to diagnose (the empty file): the status is not looked at.
count() {
  { env -u TRIAGE_RULES_PATH valgrind --tool=callgrind --callgrind-out-file=/dev/null \
      "$TRIAGE" --no-bundled --rules "$DIR/rulesets/r$1" --format json "$2" 2>&1 > /dev/null || true; } |
    awk '/Collected :/ { print $4 }'
}
declare -A START
for n in $SWEEP; do
  count "$n" "$DIR/empty.log" > /dev/null
  START[$n]=$(count "$n" "$DIR/empty.log")
done

echo "triage: $TRIAGE; rule sets: $SWEEP (make_rulesets.py); inputs: gen_kinds.py, $SIZE bytes each; callgrind (AVX2 path)"
line="start-up (empty file):"
for n in $SWEEP; do line="$line  $n rules $(awk -v c="${START[$n]}" 'BEGIN { printf "%.2f M", c / 1e6 }')"; done
echo "$line"
printf '%-14s %6s %14s %16s %12s\n' input rules instructions "per byte (-start)" "/ first N"
for k in $KINDS; do
  bytes=$(stat -c %s "$LOGS/$k.log")
  first=
  for n in $SWEEP; do
    c=$(count "$n" "$LOGS/$k.log")
    per=$(awk -v c="$c" -v s="${START[$n]}" -v b="$bytes" 'BEGIN { printf "%.3f", (c - s) / b }')
    [ -n "$first" ] || first=$per
    printf '%-14s %6s %12.1f M %16s %11.2fx\n' "$k" "$n" "$(awk -v c="$c" 'BEGIN { print c / 1e6 }')" "$per" \
      "$(awk -v a="$per" -v f="$first" 'BEGIN { print (f > 0 ? a / f : 0) }')"
  done
done
