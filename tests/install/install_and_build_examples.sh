#!/usr/bin/env bash
# Usage: install_and_build_examples.sh BUILD_DIR SOURCE_DIR PROBES(ON|OFF) CMAKE [PYTHON]
# Installs BUILD_DIR into a temporary prefix, moves the prefix (installs must be relocatable), then
# checks the installed commands and builds and runs examples/embed_c (CMake and pkg-config) and,
# with PROBES, examples/embed_cpp, from outside the source and build trees; with PYTHON (the
# interpreter the module was built for), imports the installed Python package.
set -euo pipefail
build=$1 src=$2 probes=$3 cmake=$4 python=${5:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
log=$src/corpus/shape/linear-flattened-conv/log.txt
export TRIAGE_NO_CACHE=1
unset TRIAGE_BUNDLED_RULES TRIAGE_RULES_PATH

"$cmake" --install "$build" --prefix "$work/staged" >/dev/null
mv "$work/staged" "$work/prefix"          # nothing may point back at the first prefix
P=$work/prefix
cd "$work"                                 # no source tree, no .triage/ upward

for f in bin/triage include/triage/triage.h include/triage_c.h share/triage/rules/taxonomy.yaml \
         share/man/man1/triage.1 share/doc/triage/cli.md; do
  [ -e "$P/$f" ] || fail "not installed: $f"
done
# The shipped rule cache (Note: [Shipped rule cache] in engine/src/rules/rule_cache.h): made by the
# installed triage at install time, readable by every user, writable by its owner only.
ls "$P"/share/triage/rule-cache/rules-*.bin > /dev/null 2>&1 || fail "no shipped rule cache in share/triage/rule-cache"
[ "$(stat -c %a "$P/share/triage/rule-cache")" = 755 ] || fail "share/triage/rule-cache is not mode 755"
# The similar-case index's image too (Note: [Similar index image]): a first run on an error no rule
# knows reads it instead of parsing rules/similar/cases.tsv.
ls "$P"/share/triage/rule-cache/similar-*.bin > /dev/null 2>&1 || fail "no similar-case index image in share/triage/rule-cache"
libdir=$(dirname "$(find "$P" -name triageConfig.cmake)")/../..
[ -e "$libdir/pkgconfig/triage.pc" ] || fail "not installed: triage.pc"

# The installed command finds the installed rules, not the source tree's.
listed=$("$P/bin/triage" rules list --origin) || fail "triage rules list exited $?"
origin=$(grep -m1 linear-in-features <<<"$listed") || fail "no bundled rules: $(head -3 <<<"$listed")"
case $origin in *"$P/share/triage/rules/"*) ;; *) fail "rules not from the prefix: $origin" ;; esac
"$P/bin/triage" "$log" | grep -q linear-in-features || fail "installed triage did not diagnose the log"
"$P/bin/triage" --help | grep -q "usage: triage" || fail "triage --help"

# C++, the engine alone, through find_package(triage) with Torch made unfindable: reading logs
# must not need LibTorch. Its rules are the prefix's (a static libtriage is told by the package).
"$cmake" -S "$src/tests/install/engine_consumer" -B "$work/engine_consumer" -DCMAKE_PREFIX_PATH="$P" \
  -DCMAKE_DISABLE_FIND_PACKAGE_Torch=ON -DCMAKE_BUILD_TYPE=Release >/dev/null || fail "engine-only find_package(triage)"
"$cmake" --build "$work/engine_consumer" >/dev/null
"$work/engine_consumer/diagnose" "$log" > "$work/engine.out" || fail "engine consumer exited $?"
grep -qx "rules: $P/share/triage/rules" "$work/engine.out" || fail "engine consumer: $(cat "$work/engine.out")"
grep -qx "top: linear-in-features" "$work/engine.out" || fail "engine consumer: $(cat "$work/engine.out")"

# C, through find_package(triage).
"$cmake" -S "$src/examples/embed_c" -B "$work/embed_c" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_BUILD_TYPE=Release >/dev/null
"$cmake" --build "$work/embed_c" >/dev/null
"$work/embed_c/diagnose_log" "$log" > "$work/c.json" || fail "embed_c exited $?"
grep -q '"rule":"linear-in-features"' "$work/c.json" || fail "embed_c: $(head -c 300 "$work/c.json")"

# C, through pkg-config (the engine's flags plus the C API's library).
if command -v pkg-config >/dev/null && command -v cc >/dev/null; then
  export PKG_CONFIG_PATH=$libdir/pkgconfig
  # shellcheck disable=SC2046
  cc -o "$work/diagnose_log_pc" "$src/examples/embed_c/diagnose_log.c" $(pkg-config --cflags triage) \
     -ltriage_c $(pkg-config --libs --static triage) -Wl,-rpath,"$libdir"
  TRIAGE_BUNDLED_RULES=$P/share/triage/rules "$work/diagnose_log_pc" --text "$log" | grep -q linear-in-features \
    || fail "pkg-config build of embed_c"
fi

# triage-probe: the torch-free front answers --help and --version alone, and runs the prefix's
# libexec/triage/triage-probe-torch for the rest (--list needs the probes' table).
if [ "$probes" = ON ]; then
  "$P/bin/triage-probe" --help | grep -q "usage: triage-probe" || fail "triage-probe --help"
  "$P/bin/triage-probe" --version | grep -q "^triage-probe " || fail "triage-probe --version"
  [ -x "$P/libexec/triage/triage-probe-torch" ] || fail "not installed: libexec/triage/triage-probe-torch"
  "$P/bin/triage-probe" --list | grep -q "^shape-trace" || fail "triage-probe --list: $("$P/bin/triage-probe" --list 2>&1 | head -3)"
fi

# C++: a LibTorch trainer with Guard and Monitor.
if [ "$probes" = ON ]; then
  "$cmake" -S "$src/examples/embed_cpp" -B "$work/embed_cpp" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_BUILD_TYPE=Release >/dev/null
  "$cmake" --build "$work/embed_cpp" >/dev/null
  for bug in shape nan; do
    OMP_NUM_THREADS=1 "$work/embed_cpp/trainer" "$bug" > "$work/$bug.out" 2> "$work/$bug.err" || fail "trainer $bug exited $?"
    [ ! -s "$work/$bug.err" ] || fail "trainer $bug wrote on stderr: $(head -c 400 "$work/$bug.err")"
    grep -q "trainer.cc:" "$work/$bug.out" || fail "trainer $bug: no trainer source location in: $(head -c 600 "$work/$bug.out")"
    # Written for the C++ reader: no Python command, no Python probe call, no advice the rules have
    # only for Python (every rule a C++ trainer meets has its own, rules/README.md).
    ! grep -E "python -c|--include=\*\.py|triage\.check\(|\(written for Python\)" "$work/$bug.out" \
      || fail "trainer $bug: Python advice in its report"
  done
  grep -q "^shape\." "$work/shape.out" || fail "trainer shape: $(head -c 600 "$work/shape.out")"
  grep -q "^numerics\." "$work/nan.out" || fail "trainer nan: $(head -c 600 "$work/nan.out")"
  grep -q "torch::nn::utils::clip_grad_norm_" "$work/nan.out" || fail "trainer nan: no C++ fix"
fi

# Python, from the moved prefix: the installed package reads logs with the prefix's rules and finds
# the prefix's triage-probe (its _paths.py is relative to itself).
if [ -n "$python" ]; then
  pydir=$(find "$P" -type d -path "*/site-packages/triage" | head -1)
  [ -n "$pydir" ] || fail "not installed: the Python package triage"
  out=$(PYTHONPATH=$(dirname "$pydir") "$python" -c '
import sys, triage
from triage import _paths, probes
print("module:", triage.__file__)
print("rules:", _paths.RULES)
print("probe:", probes.probe_command())
print("top:", triage.diagnose(open(sys.argv[1]).read()).diagnoses[0].rule)' "$log" 2>&1) || fail "python: $out"
  grep -qx "module: $pydir/__init__.py" <<<"$out" || fail "python imported another triage: $out"
  grep -qx "rules: $P/share/triage/rules" <<<"$out" || fail "python: $out"
  grep -qx "top: linear-in-features" <<<"$out" || fail "installed Python package: $out"
  if [ "$probes" = ON ]; then
    grep -qx "probe: $P/bin/triage-probe" <<<"$out" || fail "python: $out"
  fi
fi
echo "installed into a temporary prefix; examples built and ran against it"
