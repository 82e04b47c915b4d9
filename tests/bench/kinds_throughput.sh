#!/bin/bash
# Throughput on each kind of log people have (issue 15): triage (default: every bundled rule, metric
# signatures on, metric series read beside the scan on a second core: Note: [Metrics beside the scan]),
# the same on one thread (`--threads 1`), triage with the signal rules off, and `rg --no-unicode -c -f`
# (one thread on one file) with the rules'
# message patterns, interleaved rounds on the inputs gen_kinds.py writes. Prints MB/s, triage/rg and
# max RSS per input, and the load average (the machine may be shared: figures move with it).
# Asserts nothing about speed; it does check that every incident of `construction` is a closed one
# (each has frames, none spans more than 100 lines), the issue's stuck-segmenter symptom.
#
# usage: tests/bench/kinds_throughput.sh [--big] [KIND...]
#   --big: 512 MiB per input and 1 GiB for `construction` (default 64 MiB each)
#   env: TRIAGE (default build/triage), BENCH_DIR (default /tmp/triage-kinds-bench), RUNS (rounds;
#        default 3), SIZE / BIG_SIZE (bytes; override the defaults), BEFORE (another triage binary,
#        e.g. a build of main: run with every rule in the same rounds, for a before/after on one load)
# Each figure is from the best round; the median round's follows in brackets (MB/s of the median time).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TRIAGE=${TRIAGE:-$ROOT/build/triage}
DIR=${BENCH_DIR:-/tmp/triage-kinds-bench}
RUNS=${RUNS:-3}
BEFORE=${BEFORE:-}
SIZE=${SIZE:-67108864}
BIG_SIZE=${BIG_SIZE:-$SIZE}
if [ "${1:-}" = --big ]; then
  shift
  SIZE=536870912
  BIG_SIZE=1073741824
fi
KINDS=${*:-tqdm hf kv web traceback1pct construction}
[ -x "$TRIAGE" ] || { echo "kinds_throughput.sh: no triage binary at $TRIAGE (set TRIAGE)" >&2; exit 2; }
command -v rg > /dev/null || { echo "kinds_throughput.sh: needs ripgrep (apt-get install ripgrep)" >&2; exit 2; }
mkdir -p "$DIR/logs-$SIZE-$BIG_SIZE"
LOGS=$DIR/logs-$SIZE-$BIG_SIZE
for k in $KINDS; do
  [ -f "$LOGS/$k.log" ] || /usr/bin/python3 "$ROOT/tests/bench/gen_kinds.py" "$LOGS" --size "$SIZE" --big-size "$BIG_SIZE" "$k"
done

# The rules' message patterns for ripgrep (make_rulesets.py: named groups made plain, multi-line
# patterns made line-oriented), and the bundled rules without rules/signals/.
ALL=$(find "$ROOT/rules" -name '*.yaml' ! -name taxonomy.yaml | wc -l)
/usr/bin/python3 "$ROOT/tests/bench/make_rulesets.py" "$ROOT/rules" "$DIR/rulesets" "$ALL" > /dev/null
PAT=$DIR/rulesets/r$ALL.pat
rm -rf "$DIR/no-signals"
mkdir -p "$DIR/no-signals"
(cd "$ROOT/rules" && find . \( -name '*.yaml' -o -name '*.lua' \) ! -path './signals/*' ! -name taxonomy.yaml \
   -exec cp --parents {} "$DIR/no-signals/" \;)

# Exit 0 or 1 (lines found or not); 2 means ripgrep refused the patterns and its time means nothing.
rc=0; rg --no-unicode -c -f "$PAT" "$PAT" > /dev/null 2>&1 || rc=$?
[ "$rc" -le 1 ] || { echo "kinds_throughput.sh: rg rejects $PAT" >&2; exit 2; }

. "$ROOT/tests/bench/measure.sh"
# ratio SECONDS: how many times rg's best time it is faster (>1: faster than rg).
ratio() { awk -v a="${BEST[rg]}" -v b="$1" 'BEGIN { if (b <= 0) b = 0.01; printf "%.2fx", a / b }'; }
# both NAME: "best-round MB/s (median-round MB/s)".
both() { echo "$(rate "${BEST[$1]}") ($(rate "$(median "$1")"))"; }
# ratios NAME: triage/rg of the best rounds (of the median rounds).
ratios() { echo "$(ratio "${BEST[$1]}") ($(awk -v a="$(median rg)" -v b="$(median "$1")" 'BEGIN { if (b <= 0) b = 0.01; printf "%.2fx", a / b }'))"; }

echo "triage: $TRIAGE${BEFORE:+ (before: $BEFORE)}; rules: $ALL bundled, rg patterns: $(wc -l < "$PAT"); $RUNS interleaved rounds, best (median)"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-14s %6s %11s %11s %11s %11s %13s %13s %13s %7s%s\n' input MB "rg MB/s" "triage" "1 thread" "no-sig" \
  "triage/rg" "1 thread/rg" "no-sig/rg" "RSS MB" \
  "${BEFORE:+   before  before/rg}"
for k in $KINDS; do
  LOG=$LOGS/$k.log
  BYTES=$(stat -c %s "$LOG")
  cat "$LOG" > /dev/null  # page cache: every run reads from memory
  unset BEST RSS TIMES
  declare -A BEST RSS TIMES
  for _ in $(seq "$RUNS"); do
    measure rg rg --no-unicode -c -f "$PAT" "$LOG"
    measure all env -u TRIAGE_RULES_PATH "$TRIAGE" --format json "$LOG"
    measure one env -u TRIAGE_RULES_PATH "$TRIAGE" --threads 1 --format json "$LOG"
    measure msg env -u TRIAGE_RULES_PATH "$TRIAGE" --no-bundled --rules "$DIR/no-signals" --format json "$LOG"
    [ -z "$BEFORE" ] || measure before env -u TRIAGE_RULES_PATH "$BEFORE" --format json "$LOG"
  done
  printf '%-14s %6.0f %11s %11s %11s %11s %13s %13s %13s %7s%s\n' "$k" "$(awk -v b="$BYTES" 'BEGIN { print b / 1e6 }')" \
    "$(both rg)" "$(both all)" "$(both one)" "$(both msg)" "$(ratios all)" "$(ratios one)" "$(ratios msg)" \
    "$((${RSS[all]} / 1024))" \
    "${BEFORE:+   $(both before)  $(ratios before)}"
  if [ "$k" = construction ]; then
    /usr/bin/python3 - "$DIR/out-all" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
inc = [i for i in r["incidents"] if i["kind"] in ("traceback", "cxx_error")]
bad = [i for i in inc if not i["frames"] or i["line_end"] - i["line_start"] > 100]
print("  construction: %d traceback/C++ incidents, %d without frames or over 100 lines%s"
      % (len(inc), len(bad), "".join("\n    %s %s lines %d-%d, %d frames" % (i["kind"], i["exception"], i["line_start"],
                                     i["line_end"], len(i["frames"])) for i in bad[:5])))
EOF
  fi
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
