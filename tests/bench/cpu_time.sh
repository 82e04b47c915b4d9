#!/bin/bash
# CPU time of ripgrep and of one or two triage builds on the same logs: single runs in turn, round after
# round (on a shared machine the load drifts; interleaving makes it hit every command alike), each
# run's task-clock from `perf stat`, and per command the median and the least round. An empty file is
# measured too, so the start-up (rg compiling its patterns, triage loading its rules) can be taken out.
# Asserts nothing.
#
# usage: tests/bench/cpu_time.sh LOG...
#   env: TRIAGE (default build/triage), BEFORE (another triage binary, e.g. a build of main),
#        ROUNDS (default 15), BENCH_DIR (default /tmp/triage-cpu-bench: rg's patterns, the caches),
#        PATTERNS (a pattern file for rg instead of the one make_rulesets.py writes)
# Each triage build gets a rule cache directory of its own (their cache keys differ; a shared
# directory keeps 8 entries), warmed by one run before the rounds.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TRIAGE=$(realpath "${TRIAGE:-$ROOT/build/triage}")
BEFORE=${BEFORE:+$(realpath "$BEFORE")}
ROUNDS=${ROUNDS:-15}
DIR=${BENCH_DIR:-/tmp/triage-cpu-bench}
[ $# -gt 0 ] || { echo "usage: cpu_time.sh LOG..." >&2; exit 2; }
command -v perf > /dev/null || { echo "cpu_time.sh: needs perf" >&2; exit 2; }
command -v rg > /dev/null || { echo "cpu_time.sh: needs ripgrep" >&2; exit 2; }
mkdir -p "$DIR"
ALL=$(find "$ROOT/rules" -name '*.yaml' ! -name taxonomy.yaml | wc -l)
/usr/bin/python3 "$ROOT/tests/bench/make_rulesets.py" "$ROOT/rules" "$DIR/rulesets" "$ALL" > /dev/null
PAT=${PATTERNS:-$DIR/rulesets/r$ALL.pat}
# rg exits 2 when it refuses the patterns: its time would mean nothing.
rc=0; rg --no-unicode -c -f "$PAT" "$PAT" > /dev/null 2>&1 || rc=$?
[ "$rc" -le 1 ] || { echo "cpu_time.sh: rg rejects $PAT (set PATTERNS)" >&2; exit 2; }
: > "$DIR/empty.log"
for name in after before; do
  rm -rf "$DIR/cache-$name" && mkdir -p "$DIR/cache-$name" && chmod 700 "$DIR/cache-$name"
done

# run NAME LOG: prints the task-clock (ms) of one run.
run() {
  local cmd
  case $1 in
    rg) cmd=(rg --no-unicode -c -f "$PAT" "$2") ;;
    after) cmd=(env TRIAGE_CACHE_DIR="$DIR/cache-after" "$TRIAGE" --format json "$2") ;;
    before) cmd=(env TRIAGE_CACHE_DIR="$DIR/cache-before" "$BEFORE" --format json "$2") ;;
  esac
  # rg exits 1 when no line matches and triage 1 when it finds nothing: only the time matters here.
  { perf stat -x, -e task-clock "${cmd[@]}" 2>&1 > /dev/null || true; } | awk -F, '/task-clock/ { print $1 }'
}
NAMES="rg ${BEFORE:+before} after"
echo "rules: $ALL, rg patterns: $(wc -l < "$PAT") ($PAT); $ROUNDS rounds; triage: $TRIAGE${BEFORE:+ (before: $BEFORE)}"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-32s %8s %20s %16s %20s\n' log command "median ms (least)" "rg/this" "start-up out"
declare -A EMPTY=()
for log in "$DIR/empty.log" "$@"; do
  declare -A T=()
  for n in $NAMES; do run "$n" "$log" > /dev/null; done  # warm the page cache and the rule caches
  for _ in $(seq "$ROUNDS"); do
    for n in $NAMES; do T[$n]="${T[$n]:-} $(run "$n" "$log")"; done
  done
  declare -A MED=()
  for n in $NAMES; do
    MED[$n]=$(tr ' ' '\n' <<< "${T[$n]}" | grep . | sort -g | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }')
    least=$(tr ' ' '\n' <<< "${T[$n]}" | grep . | sort -g | head -1)
    [ "$log" = "$DIR/empty.log" ] && EMPTY[$n]=${MED[$n]}
    # The ratio of the medians, and of what is left of them once the empty file's are taken out.
    printf '%-32s %8s %12.1f (%5.1f) %15.2fx %19s\n' "$(basename "$log")" "$n" "${MED[$n]}" "$least" \
      "$(awk -v a="${MED[rg]}" -v b="${MED[$n]}" 'BEGIN { print a / b }')" \
      "$(awk -v a="${MED[rg]}" -v b="${MED[$n]}" -v ea="${EMPTY[rg]}" -v eb="${EMPTY[$n]}" \
         'BEGIN { if (a - ea <= 0 || b - eb <= 0) print "-"; else printf "%.2fx", (a - ea) / (b - eb) }')"
  done
  unset T MED
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
