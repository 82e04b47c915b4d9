#!/bin/sh
# Assembles log.txt from a real run of program.py (Debian python3-torch 1.13.1): stdout as it is (UTF-8),
# then stderr converted to UTF-16LE with CRLF line ends and appended, no byte order mark (what Windows
# PowerShell 5's `>>` appends to an existing file: Note: [UTF-16 appended to UTF-8] in
# engine/src/log/utf16_input.h).
set -eu
cd "$(dirname "$0")"
err=$(mktemp)
/usr/bin/python3 program.py > log.txt 2> "$err" || true
sed 's/$/\r/' "$err" | iconv -f UTF-8 -t UTF-16LE >> log.txt
rm -f "$err"
