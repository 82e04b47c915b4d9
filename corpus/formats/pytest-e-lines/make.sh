#!/bin/sh
# Runs the test file with Debian's python3-pytest (7.2) on /usr/bin/python3; no cache dir is written.
set -u
cd "$(dirname "$0")"
/usr/bin/python3 -m pytest -p no:cacheprovider --color=no test_classifier.py > log.txt 2>&1
exit 0
