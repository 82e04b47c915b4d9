#!/bin/bash
# Writes everything the log path prints for the repository's logs into one folder, so that two builds
# (before and after a change meant to keep the output) can be compared with `diff -r`:
#   - `triage LOG` (text) and `triage --format json LOG`, with their exit codes, for every log under
#     corpus/ (except the frozen corpus/heldout/, which is never read here), tests/formats/ and
#     tests/fixtures/;
#   - `triage eval corpus` (its case names, the held-out ones included, are printed by triage itself);
#   - the segmenter's unit tests (tests/segmenter*_test.cc, tests/incident_bound_test.cc,
#     tests/formats/formats_test.cc): each test's name and result, when TESTS points at a triage_tests.
# Both builds read the same rules (TRIAGE_BUNDLED_RULES, default rules/).
#
# usage: tests/bench/output_snapshot.sh OUT_DIR [TRIAGE] [TESTS]
#   e.g. tests/bench/output_snapshot.sh /tmp/before old/triage old/tests/triage_tests
#        tests/bench/output_snapshot.sh /tmp/after build/triage build/tests/triage_tests
#        diff -r /tmp/before /tmp/after
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:?usage: output_snapshot.sh OUT_DIR [TRIAGE] [TESTS]}
TRIAGE=$(realpath "${2:-$ROOT/build/triage}")
TESTS=${3:-}
export TRIAGE_BUNDLED_RULES=${TRIAGE_BUNDLED_RULES:-$ROOT/rules}
unset TRIAGE_RULES_PATH
rm -rf "$OUT" && mkdir -p "$OUT"
cd "$ROOT" || exit 2
n=0
while IFS= read -r log; do
  dest="$OUT/logs/$log"
  mkdir -p "$(dirname "$dest")"
  "$TRIAGE" "$log" > "$dest.txt" 2>&1; echo "rc $?" >> "$dest.txt"
  "$TRIAGE" --format json "$log" > "$dest.json" 2>&1; echo "rc $?" >> "$dest.json"
  n=$((n + 1))
done < <(find corpus tests/formats tests/fixtures -path corpus/heldout -prune -o -type f -name 'log*.txt' -print | sort)
"$TRIAGE" eval corpus > "$OUT/eval.txt" 2>&1; echo "rc $?" >> "$OUT/eval.txt"
if [ -n "$TESTS" ]; then
  "$TESTS" --gtest_filter='Segmenter*:IncidentBound*:ConcatenatedLogs*:LogFormats*' 2>&1 |
    grep -E '^\[ +(OK|FAILED|SKIPPED) +\]' | sed 's/ (.*//' | sort > "$OUT/unit_tests.txt"
  echo "$(grep -c OK "$OUT/unit_tests.txt") passed, $(grep -c FAILED "$OUT/unit_tests.txt") failed" >> "$OUT/unit_tests.txt"
fi
echo "output_snapshot.sh: $n logs (text and JSON), eval corpus${TESTS:+, segmenter unit tests} in $OUT"
