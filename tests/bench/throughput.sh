#!/bin/bash
# Log triage throughput: `triage` against ripgrep on the same file, memory, and a rule-count sweep.
# See tests/bench/README.md. Prints figures; asserts nothing about speed.
#
# usage: tests/bench/throughput.sh [LOG]
#   env: TRIAGE (default build/triage), BENCH_DIR (default /tmp/triage-bench), SIZE (bytes of the
#        generated log, default 1 GiB), RUNS (rounds, best of; default 3), SWEEP (rule counts, default "50 200 400"),
#        HUGE=0 skips the 2 GB streaming check, VARIANTS (words, default, or alternation: make_rulesets.py).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TRIAGE=${TRIAGE:-$ROOT/build/triage}
DIR=${BENCH_DIR:-/tmp/triage-bench}
SIZE=${SIZE:-1073741824}
RUNS=${RUNS:-3}
SWEEP=${SWEEP:-"50 200 400"}
HUGE=${HUGE:-1}
VARIANTS=${VARIANTS:-words}  # how make_rulesets.py synthesises rules past the bundled ones
mkdir -p "$DIR"
LOG=${1:-$DIR/train-$SIZE.log}
[ -x "$TRIAGE" ] || { echo "throughput.sh: no triage binary at $TRIAGE (set TRIAGE)" >&2; exit 2; }
command -v rg > /dev/null || { echo "throughput.sh: needs ripgrep (rg)" >&2; exit 2; }
if [ ! -f "$LOG" ]; then /usr/bin/python3 "$ROOT/tests/bench/gen_log.py" "$LOG" --size "$SIZE"; fi
BYTES=$(stat -c %s "$LOG")
MB=$(awk -v b="$BYTES" 'BEGIN { printf "%.1f", b / 1e6 }')

# Rule sets: every bundled rule ("all"), and the sweep's sizes (make_rulesets.py says how it builds them).
/usr/bin/python3 "$ROOT/tests/bench/make_rulesets.py" --variants "$VARIANTS" "$ROOT/rules" "$DIR/rulesets" $SWEEP > /dev/null
ALL=$(find "$ROOT/rules" -name '*.yaml' ! -name taxonomy.yaml | wc -l)
/usr/bin/python3 "$ROOT/tests/bench/make_rulesets.py" "$ROOT/rules" "$DIR/rulesets" "$ALL" > /dev/null

cat "$LOG" > /dev/null  # page cache: every run reads from memory

. "$ROOT/tests/bench/measure.sh"

echo "log: $LOG ($MB MB, $(wc -l < "$LOG") lines); triage: $TRIAGE; best of $RUNS rounds"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores, avx2: $(grep -qw avx2 /proc/cpuinfo && echo yes || echo no)"
measure wc wc -l "$LOG"
echo "baseline  wc -l (memchr line count)            $(rate "${BEST[wc]}") MB/s"
for n in $SWEEP "$ALL"; do
  # Exit 0 or 1 (lines found or not); 2 means ripgrep refused the patterns and its time means nothing.
  rc=0; rg --no-unicode -c -f "$DIR/rulesets/r$n.pat" "$DIR/rulesets/r$n.pat" > /dev/null 2>&1 || rc=$?
  [ "$rc" -le 1 ] || { echo "throughput.sh: rg rejects $DIR/rulesets/r$n.pat" >&2; exit 2; }
done
# Rounds: every command once per round, in turn (measure.sh says why).
for _ in $(seq "$RUNS"); do
  for n in $SWEEP "$ALL"; do
    measure "rg$n" rg --no-unicode -c -f "$DIR/rulesets/r$n.pat" "$LOG"
    measure "t$n" env -u TRIAGE_RULES_PATH "$TRIAGE" --no-bundled --rules "$DIR/rulesets/r$n" --format json "$LOG"
  done
done
printf '%-8s %-9s %10s %10s %12s %12s\n' rules patterns "rg MB/s" "triage MB/s" "triage/rg" "triage RSS"
for n in $SWEEP "$ALL"; do
  pats=$(wc -l < "$DIR/rulesets/r$n.pat")
  label=$n; [ "$n" = "$ALL" ] && label="$n(all)"
  printf '%-8s %-9s %10s %10s %11sx %9s MB\n' "$label" "$pats" "$(rate "${BEST[rg$n]}")" "$(rate "${BEST[t$n]}")" \
    "$(awk -v a="${BEST[rg$n]}" -v b="${BEST[t$n]}" 'BEGIN { if (b <= 0) b = 0.01; printf "%.1f", a / b }')" "$((${RSS[t$n]} / 1024))"
done

if [ "$HUGE" = 1 ]; then
  # Bounded memory on a stream larger than RAM-sized buffers would allow: 2x the log through stdin.
  /usr/bin/time -f "%e %M" -o "$DIR/time.out" bash -c "cat '$LOG' '$LOG' | '$TRIAGE' --format json - > '$DIR/huge.json'" || true
  read -r s rss < "$DIR/time.out"
  lines=$(/usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r['lines'], len(r['incidents']), len(r['diagnoses']))" "$DIR/huge.json")
  echo "2x log via stdin ($(awk -v b="$BYTES" 'BEGIN { printf "%.2f", 2 * b / 1e9 }') GB): ${s}s, max RSS $((rss / 1024)) MB, valid JSON, lines/incidents/diagnoses: $lines"
fi
