#!/bin/bash
# Compares `triage --format json` of two builds on every corpus log outside corpus/heldout (the frozen
# held-out split is never read by tools that serve rule or engine work): the output contract must not move
# when only the log path's speed changes. Both builds read the same rules (TRIAGE_BUNDLED_RULES).
#
# usage: tests/bench/compare_corpus.sh OLD_TRIAGE NEW_TRIAGE [RULES_DIR]
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OLD=$1 NEW=$2
export TRIAGE_BUNDLED_RULES=${3:-$ROOT/rules}
unset TRIAGE_RULES_PATH
same=0 differ=0
for log in "$ROOT"/corpus/*/*/log.txt; do
  case $log in "$ROOT"/corpus/heldout/*) continue ;; esac
  a=$("$OLD" --format json "$log" 2>&1)
  b=$("$NEW" --format json "$log" 2>&1)
  if [ "$a" == "$b" ]; then
    same=$((same + 1))
  else
    differ=$((differ + 1))
    echo "DIFFERS: $log"
    diff <(echo "$a") <(echo "$b") | head -5
  fi
done
echo "compare_corpus.sh: $same identical, $differ different (rules: $TRIAGE_BUNDLED_RULES)"
[ "$differ" -eq 0 ]
