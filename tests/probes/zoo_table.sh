#!/bin/sh
# Prints the probe zoo as a Markdown table (case, planted problem, expected category, first
# diagnosis, the probe that confirmed it, how it was found), read from the zoo tests' own output:
# the C++ zoo (corpus/programs/zoo.h, run by triage_probe_tests) and, with a Python module built,
# the same conditions on Python models (tests/python/test_probes.py).
#   tests/probes/zoo_table.sh [BUILD_DIR]        (default: build)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)  # absolute: the Python part runs from tests/python
echo "| case | planted problem | expected | first diagnosis | confirmed by | found by |"
echo "|---|---|---|---|---|---|"
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$build/tests/probes/triage_probe_tests" \
  --gtest_filter='Programs/Zoo.DiagnosisNamesThePlantedBug/*' 2>/dev/null |
  sed -n 's/^ZOO | \(.*\)$/| \1 |/p'
if [ -d "$build/python" ] && [ -x /usr/bin/python3 ]; then
  echo
  echo "| Python case | planted problem | expected | first diagnosis | confirmed by | found by |"
  echo "|---|---|---|---|---|---|"
  cd "$root/tests/python"
  PYTHONPATH="$build/python" TRIAGE_PYTHONPATH="$build/python" TRIAGE_CLI="$build/triage" \
    TRIAGE_SOURCE_DIR="$root" PYTHONDONTWRITEBYTECODE=1 \
    /usr/bin/python3 -m pytest -q -s -p no:cacheprovider test_probes.py -k zoo 2>/dev/null |
    sed -n 's/^.*PYZOO | \(.*\)$/| \1 |/p'
fi
