#!/bin/bash
# Compares two builds' output on the repository's logs: the output contract must not move when only
# the log path's speed changes. Both builds are snapshotted by output_snapshot.sh (text and JSON with
# exit codes on every log outside corpus/heldout, tests/formats and tests/fixtures, and `eval corpus`),
# reading the same rules (TRIAGE_BUNDLED_RULES), and the snapshots are compared with `diff -r`.
#
# usage: tests/bench/compare_corpus.sh OLD_TRIAGE NEW_TRIAGE [RULES_DIR]
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OLD=${1:?usage: compare_corpus.sh OLD_TRIAGE NEW_TRIAGE [RULES_DIR]}
NEW=${2:?usage: compare_corpus.sh OLD_TRIAGE NEW_TRIAGE [RULES_DIR]}
export TRIAGE_BUNDLED_RULES=${3:-$ROOT/rules}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
"$ROOT/tests/bench/output_snapshot.sh" "$tmp/old" "$OLD" > /dev/null || exit 2
"$ROOT/tests/bench/output_snapshot.sh" "$tmp/new" "$NEW" > /dev/null || exit 2
if diff -r "$tmp/old" "$tmp/new" > "$tmp/diff"; then
  echo "compare_corpus.sh: identical (rules: $TRIAGE_BUNDLED_RULES)"
else
  sed "s|$tmp/||g" "$tmp/diff" | head -40
  echo "compare_corpus.sh: $(grep -c '^diff ' "$tmp/diff") files differ (rules: $TRIAGE_BUNDLED_RULES)"
  exit 1
fi
