#!/usr/bin/env bash
# Start-up benchmark (issue 15 item 4): `triage` on a short real log with all bundled rules, warm (the
# rule cache holds this rule set), the two cold starts a user meets (the first run after editing one
# rule file, its text or one of its patterns, whose other files' parts are cached, Note: [Rule parts];
# the first run after an install, served by the shipped cache, Note: [Shipped rule cache], here a copy
# of rules/ with its rule-cache beside it and an empty user cache), no cache at all (TRIAGE_NO_CACHE=1),
# and `triage-probe --help`.
# For each: CPU time (perf stat over RUNS runs, else a timed loop; the two cold starts set up each run
# and report the mean of RUNS single runs), wall time, page faults (perf stat; the cold starts: of one
# set-up run), instructions (callgrind; `perf stat -e
# instructions` where the machine counts them), peak RSS (/usr/bin/time) and, for triage-probe, the
# shared objects loaded. Targets: warm <= 10 ms, cold <= 40 ms; triage-probe --help without LibTorch.
# Prints figures; asserts nothing.
# Usage: tests/bench/startup.sh [path/to/triage] [runs]
# Environment: PROBE (default build/bindings/probe/triage-probe; "" skips it), CALLGRIND=0 skips the
# instruction counts (valgrind takes a few seconds per run), LOG (default
# corpus/shape/linear-flattened-conv/log.txt, a log a rule matches; corpus/negative/data-path-missing/log.txt
# is one no rule matches, whose primary error the similar-case vote reads: Note: [Similar known case]).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
bin=${1:-build/triage}
runs=${2:-30}
probe=${PROBE-build/bindings/probe/triage-probe}
log=${LOG:-corpus/shape/linear-flattened-conv/log.txt}
[ -x "$bin" ] || { echo "build first: $bin not found" >&2; exit 2; }
bin=$(realpath "$bin")
# A binary copied out of the build tree finds the bundled rules through TRIAGE_BUNDLED_RULES.
export TRIAGE_BUNDLED_RULES=${TRIAGE_BUNDLED_RULES:-$root/rules}
unset TRIAGE_RULES_PATH TRIAGE_NO_CACHE
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
export TRIAGE_CACHE_DIR=$cache

have_perf=no
if command -v perf > /dev/null && perf stat -x, -e task-clock true > /dev/null 2>&1; then have_perf=yes; fi
have_instr=no
if [ $have_perf = yes ] && perf stat -x, -e instructions:u true 2>&1 | grep -q '^[0-9]'; then have_instr=yes; fi

# time_runs CMD...: mean CPU (user + system) and wall time of RUNS runs.
time_runs() {
  if [ $have_perf = yes ]; then
    perf stat -r "$runs" -e task-clock,page-faults "$@" 2>&1 > /dev/null |
      awk '/task-clock/ { cpu = $1 } /page-faults/ { faults = $1 } /seconds time elapsed/ { wall = $1 * 1000 }
           END { printf "CPU %.2f ms, wall %.2f ms, %s page faults", cpu, wall, faults }'
  else
    local start end
    start=$(date +%s%N)
    for _ in $(seq "$runs"); do "$@" > /dev/null 2>&1 || true; done
    end=$(date +%s%N)
    printf "wall %.2f ms" "$(echo "($end - $start) / $runs / 1000000" | bc -l)"
  fi
}

# instructions CMD...: user-space instructions of one run.
instructions() {
  if [ $have_instr = yes ]; then
    perf stat -x, -e instructions:u "$@" 2>&1 > /dev/null | awk -F, '/instructions/ { printf ", %.1f M instructions (perf)", $1 / 1e6 }'
  elif [ "${CALLGRIND:-1}" != 0 ] && command -v valgrind > /dev/null; then
    # Under valgrind /proc/self/exe is the valgrind tool's, and the program's identity is part of the
    # cache key (Note: [Rule cache]): one run first fills the cache for it.
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" > /dev/null 2>&1 || true
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 > /dev/null |
      awk '/Collected :/ { printf ", %.1f M instructions (callgrind)", $4 / 1e6 }'
  fi
}

rss() {
  [ -x /usr/bin/time ] && /usr/bin/time -f ", peak RSS %M KiB" "$@" 2>&1 > /dev/null | tail -1 | tr -d '\n'
  return 0
}

measure() {  # measure LABEL CMD...
  local label=$1
  shift
  printf "%-34s %s%s%s\n" "$label" "$(time_runs "$@")" "$(instructions "$@")" "$(rss "$@")"
}

# measure_each LABEL SETUP PRIME CMD...: as measure, with the shell function SETUP run before every
# run (outside the timing): the mean of RUNS single runs, instructions and peak RSS each of a set-up
# run. Under valgrind the program's identity is the valgrind tool's (Note: [Rule cache]), so the
# shell function PRIME first makes, under callgrind, the caches the counted run is to find.
measure_each() {
  local label=$1 setup=$2 prime=$3
  shift 3
  local cpu=0 wall=0 i line
  for i in $(seq "$runs"); do
    "$setup"
    if [ $have_perf = yes ]; then
      line=$(perf stat -x, -e task-clock "$@" 2>&1 > /dev/null | awk -F, '/task-clock/ { print $1 }')
      cpu=$(echo "$cpu + $line" | bc -l)
    fi
    local start end
    start=$(date +%s%N)
    "$setup"
    "$@" > /dev/null 2>&1 || true
    end=$(date +%s%N)
    wall=$(echo "$wall + ($end - $start) / 1000000" | bc -l)
  done
  local times
  if [ $have_perf = yes ]; then
    times=$(printf "CPU %.2f ms, wall %.2f ms (set-up included)" "$(echo "$cpu / $runs" | bc -l)" "$(echo "$wall / $runs" | bc -l)")
  else
    times=$(printf "wall %.2f ms (set-up included)" "$(echo "$wall / $runs" | bc -l)")
  fi
  if [ $have_perf = yes ]; then
    "$setup"
    times+=$(perf stat -x, -e page-faults "$@" 2>&1 > /dev/null | awk -F, '/page-faults/ { printf ", %s page faults", $1 }')
  fi
  local peak
  "$setup"
  peak=$(rss "$@")
  local counted=""
  if [ $have_instr = yes ]; then
    "$setup"
    counted=$(perf stat -x, -e instructions:u "$@" 2>&1 > /dev/null | awk -F, '/instructions/ { printf ", %.1f M instructions (perf)", $1 / 1e6 }')
  elif [ "${CALLGRIND:-1}" != 0 ] && command -v valgrind > /dev/null; then
    "$prime"
    "$setup"
    counted=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 > /dev/null |
      awk '/Collected :/ { printf ", %.1f M instructions (callgrind)", $4 / 1e6 }')
  fi
  printf "%-34s %s%s%s\n" "$label" "$times" "$counted" "$peak"
}

# A copy of the bundled rules, for the two cold starts users meet.
copy=$cache/copy
mkdir -p "$copy"
cp -r "$TRIAGE_BUNDLED_RULES" "$copy/rules"
edited=$(find "$copy/rules" -name '*.yaml' ! -name taxonomy.yaml ! -name calibration.yaml | sort | sed -n 1p)
# One rule file edited before each run (a comment appended: a new key every time), the rest cached.
edit_one() { echo "# edited $RANDOM$RANDOM" >> "$edited"; }
# The same file's first pattern edited before each run (an optional group with a new name: the
# pattern list changes, so the RE2::Set is compiled at once, Note: [Compiled pattern sets]).
pattern_line=$(grep -n -m1 "^    - '.*'$" "$edited" | cut -d: -f1)
original=$(cat "$edited")
edit_pattern() {
  printf '%s\n' "$original" | sed "${pattern_line}s/'\$/(?:zq$RANDOM$RANDOM)?'/" > "$edited"
}
prime_parts() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$log" > /dev/null 2>&1 || true; }
# An empty user cache before each run; the shipped cache beside the copied rules, made as
# cmake/ship_rule_cache.cmake makes it (an empty HOME and working directory).
fresh_user_cache() { rm -rf "$cache/user"; }
ship() {  # ship [valgrind-command...]
  rm -rf "$copy/rule-cache"
  sleep 2.1  # as cmake/ship_rule_cache.cmake waits: the files settled, so the stamp index is made too
  mkdir -p "$cache/home"
  (cd "$cache/home" && HOME=$cache/home TRIAGE_CACHE_DIR=$copy/rule-cache "$@" "$bin" rules list > /dev/null 2>&1) || true
  chmod -R go-w "$copy/rule-cache" 2> /dev/null || true
}
prime_shipped() { ship valgrind --tool=callgrind --callgrind-out-file=/dev/null; }

echo "triage start-up: $bin on $log ($(wc -l < "$log") lines), $("$bin" rules list | wc -l) bundled rules"
echo "machine: $(nproc) CPUs, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$bin" "$log" > /dev/null || true   # fills the cache, warms the page cache
measure "triage, warm (cache hit):" "$bin" "$log"
(
  export TRIAGE_BUNDLED_RULES=$copy/rules TRIAGE_CACHE_DIR=$cache/edits
  "$bin" "$log" > /dev/null || true          # the parts of every file
  measure_each "triage, one rule file edited:" edit_one prime_parts "$bin" "$log"
  [ -n "$pattern_line" ] && measure_each "triage, one pattern edited:" edit_pattern prime_parts "$bin" "$log"
)
(
  export TRIAGE_BUNDLED_RULES=$copy/rules
  ship
  export TRIAGE_CACHE_DIR=$cache/user
  measure_each "triage, first run (shipped cache):" fresh_user_cache prime_shipped "$bin" "$log"
)
TRIAGE_NO_CACHE=1 measure "triage, no cache at all:" "$bin" "$log"
if [ -n "$probe" ] && [ -x "$probe" ]; then
  measure "triage-probe --help:" "$probe" --help
  trace=$(LD_DEBUG=libs "$probe" --help 2>&1 > /dev/null || true)
  objects=$(grep -c "calling init" <<<"$trace" || true)
  torch=no
  if grep -q libtorch <<<"$trace"; then torch=yes; fi
  echo "triage-probe --help: $objects shared objects initialised, LibTorch loaded: $torch"
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
[ $have_instr = yes ] || echo "(instructions from callgrind: valgrind hides the SHA extensions, so the digests run the portable SHA-256 there: ~60 M instructions more than the SHA-NI path per 0.9 MB of rule files hashed; a warm start hashes only the files' stamps, a start after an edit each file once, its digest serving both the set's key and its part's key)"
# The engine must not load LibTorch: list the shared libraries of the binary.
if ldd "$bin" | grep -q -i torch; then echo "WARNING: $bin links LibTorch"; else echo "libtorch linked by triage: no"; fi
