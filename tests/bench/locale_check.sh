#!/bin/bash
# The C locale check the unit tests cannot make (tests/locale_test.cc covers the C++ global locale):
# builds two locales with a decimal comma, de_DE.UTF-8 and fr_FR.ISO-8859-1 (Latin-1: its LC_CTYPE
# counts bytes above 127 as letters), into a temporary LOCPATH with localedef, and runs locale_embed
# (tests/bench/locale_embed.cc: every report format of the corpus logs, `explain` of every rule, the
# rule examples) under "C" and under each; the outputs must be identical. Exit 0 when they are, 1 with
# the first differences when not, 2 when the locales cannot be built (no localedef, no i18n sources).
#
# usage: tests/bench/locale_check.sh [LOCALE_EMBED] [LOGS]   (defaults: build/tests/locale_embed, 80)
#   cmake --build build --target locale_embed && tests/bench/locale_check.sh
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
EMBED=$(realpath "${1:-$ROOT/build/tests/locale_embed}")
COUNT=${2:-80}
WORK=$(mktemp -d /tmp/triage-locale-check.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/locales"
for l in de_DE:UTF-8 fr_FR:ISO-8859-1; do
  if ! localedef -i "${l%%:*}" -f "${l##*:}" "$WORK/locales/${l%%:*}.${l##*:}" > "$WORK/localedef.log" 2>&1; then
    echo "locale_check.sh: localedef could not build ${l%%:*}.${l##*:}:"; cat "$WORK/localedef.log"; exit 2
  fi
done
export LOCPATH="$WORK/locales"
cd "$ROOT" || exit 2
# Logs that print numbers; never corpus/heldout/.
mapfile -t logs < <(find corpus -path corpus/heldout -prune -o -type f -name 'log.txt' -print | sort | head -n "$COUNT")
status=0
"$EMBED" - rules "${logs[@]}" > "$WORK/C.txt" || exit 2
for l in de_DE.UTF-8 fr_FR.ISO-8859-1; do
  "$EMBED" "$l" rules "${logs[@]}" > "$WORK/$l.txt" || exit 2
  if cmp -s "$WORK/C.txt" "$WORK/$l.txt"; then
    echo "locale_check.sh: $l: identical to C ($(wc -c < "$WORK/C.txt") bytes, ${#logs[@]} logs)"
  else
    echo "locale_check.sh: $l: $(diff "$WORK/C.txt" "$WORK/$l.txt" | grep -c '^>') lines differ from C, the first:"
    diff "$WORK/C.txt" "$WORK/$l.txt" | grep '^>' | cut -c1-200 | head -n 10
    status=1
  fi
done
exit $status
