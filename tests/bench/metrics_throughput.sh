#!/bin/bash
# Metric extraction and signal rules: what they cost on a long progress log, against ripgrep.
#
# The issue's bar: `triage` with the signal rules on a 1 GiB progress log must go at least as fast as
# `rg --no-unicode -c -f <rule patterns>` on the same file, with max RSS under 64 MB. This script
# prints the figures; it asserts nothing about speed (timings depend on the machine).
#
# usage: tests/bench/metrics_throughput.sh [LOG]
#   env: TRIAGE (default build/triage), BENCH_DIR (default /tmp/triage-metrics-bench), SIZE (bytes of the
#        generated log, default 1 GiB), RUNS (rounds, best of; default 3)
# The log comes from tests/bench/gen_log.py (progress lines in several formats with values from a
# real training run, plus real failures from corpus/), so the extractor sees a value on most lines.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TRIAGE=${TRIAGE:-$ROOT/build/triage}
DIR=${BENCH_DIR:-/tmp/triage-metrics-bench}
SIZE=${SIZE:-1073741824}
RUNS=${RUNS:-3}
mkdir -p "$DIR"
LOG=${1:-$DIR/train-$SIZE.log}
[ -x "$TRIAGE" ] || { echo "metrics_throughput.sh: no triage binary at $TRIAGE (set TRIAGE)" >&2; exit 2; }
command -v rg > /dev/null || { echo "metrics_throughput.sh: needs ripgrep (rg)" >&2; exit 2; }
if [ ! -f "$LOG" ]; then /usr/bin/python3 "$ROOT/tests/bench/gen_log.py" "$LOG" --size "$SIZE"; fi
BYTES=$(stat -c %s "$LOG")

# Rule sets: every bundled rule (signal rules included), and the same without rules/signals/.
ALL=$(find "$ROOT/rules" -name '*.yaml' ! -name taxonomy.yaml | wc -l)
/usr/bin/python3 "$ROOT/tests/bench/make_rulesets.py" "$ROOT/rules" "$DIR/rulesets" "$ALL" > /dev/null
rm -rf "$DIR/no-signals"
mkdir -p "$DIR/no-signals"
(cd "$ROOT/rules" && find . \( -name '*.yaml' -o -name '*.lua' \) ! -path './signals/*' ! -name taxonomy.yaml \
   -exec cp --parents {} "$DIR/no-signals/" \;)
SIGNALS=$(find "$ROOT/rules/signals" -name '*.yaml' | wc -l)
# ripgrep's pattern file: named groups made plain (one regex may not repeat a group name), and the
# patterns that must match across lines left out (rg refuses a literal \n without -U, and -U reads the
# whole file into memory); the count left out is printed.
/usr/bin/python3 -c '
import re, sys
kept, dropped = [], 0
for p in open(sys.argv[1]).read().splitlines():
    p = re.sub(r"\(\?P<\w+>", "(?:", p)
    if "\\n" in re.sub(r"\[\^[^\]]*\\n[^\]]*\]", "", p):
        dropped += 1
        continue
    kept.append(p)
open(sys.argv[2], "w").write("\n".join(kept) + "\n")
print("rg patterns: %d (%d multi-line patterns left out)" % (len(kept), dropped))
' "$DIR/rulesets/r$ALL.pat" "$DIR/rg.pat"

cat "$LOG" > /dev/null  # page cache: every run reads from memory

. "$ROOT/tests/bench/measure.sh"

echo "log: $LOG ($(awk -v b="$BYTES" 'BEGIN { printf "%.1f", b / 1e6 }') MB, $(wc -l < "$LOG") lines); best of $RUNS rounds"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores"
rg --no-unicode -c -f "$DIR/rg.pat" "$LOG" > /dev/null || { echo "rg failed on $DIR/rg.pat" >&2; exit 2; }
# Rounds: every command once per round, in turn (measure.sh says why).
for _ in $(seq "$RUNS"); do
  measure rg rg --no-unicode -c -f "$DIR/rg.pat" "$LOG"
  measure msg env -u TRIAGE_RULES_PATH "$TRIAGE" --no-bundled --rules "$DIR/no-signals" --format json "$LOG"
  measure all env -u TRIAGE_RULES_PATH "$TRIAGE" --format json "$LOG"
done
row() { printf '%-44s %9s %9s %6s MB\n' "$1" "${BEST[$2]}" "$(rate "${BEST[$2]}")" "$((${RSS[$2]} / 1024))"; }
printf '%-44s %9s %9s %9s\n' "" "seconds" "MB/s" "max RSS"
row "rg --no-unicode -c -f (the rules' patterns)" rg
row "triage, message rules only" msg
row "triage, all rules ($SIGNALS signal rules)" all
echo "triage with signatures / rg: $(awk -v a="${BEST[rg]}" -v b="${BEST[all]}" 'BEGIN { printf "%.2f", a / b }')x the throughput"
/usr/bin/python3 - "$DIR/out-all" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
print("last run: %d lines, %d incidents, %d diagnoses" % (r["lines"], len(r["incidents"]), len(r["diagnoses"])))
for d in r["diagnoses"][:5]:
    s = d.get("series")
    print("  %-34s %-30s %.2f%s" % (d["category"], d["rule"], d["confidence"],
          "  series %s: %d points kept" % (s["name"], len(s["points"])) if s else ""))
EOF
