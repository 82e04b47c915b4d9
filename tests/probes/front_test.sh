#!/usr/bin/env bash
# triage-probe's front (Note: [Probe front] in bindings/probe/front.cc): --help, --version and usage
# errors are answered without loading LibTorch (the dynamic loader's own list of the libraries it
# loads, LD_DEBUG=libs, must name no libtorch), with the right exit status; --list runs the LibTorch
# part, which the same check must see loading libtorch (so the check can fail).
# Usage: front_test.sh path/to/triage-probe
set -uo pipefail
probe=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
loads_torch() { grep -q 'libtorch' <<<"$1"; }

run() {  # run ARGS...: sets out (stdout), trace (stderr with the loader's trace), rc
  local t; t=$(mktemp)
  out=$(LD_DEBUG=libs "$probe" "$@" 2>"$t"); rc=$?
  trace=$(cat "$t"); rm -f "$t"
}

# without_torch WANT_RC STREAM PATTERN ARGS...: runs ARGS, expects exit status WANT_RC, a line matching
# PATTERN on STREAM (out or err), and no libtorch in the loader's trace.
without_torch() {
  local want=$1 stream=$2 pattern=$3
  shift 3
  run "$@"
  [ "$rc" -eq "$want" ] || fail "$* exited $rc, not $want"
  local text=$out
  [ "$stream" = err ] && text=$trace
  grep -qE "$pattern" <<<"$text" || fail "$*: no line matching '$pattern' on std$stream"
  loads_torch "$trace" && fail "$* loaded LibTorch"
  return 0
}

without_torch 0 out "^usage: triage-probe --model" --help
without_torch 0 out "^triage-probe [0-9]+\.[0-9]+\.[0-9]+$" --version
without_torch 2 err "^triage-probe: unknown argument --no-such-option" --no-such-option
without_torch 2 err "^triage-probe: --model needs a value" --model
without_torch 2 err "^usage: triage-probe" --model m.pt
without_torch 2 err "^triage-probe: --lr takes a number of 0 or more, not 'abc'" --model m.pt --inputs x.pt --lr abc
without_torch 2 err "^triage-probe: --lr takes a number of 0 or more, not '1e-3x'" --model m.pt --inputs x.pt --lr 1e-3x
without_torch 2 err "^triage-probe: --budget takes a positive number of seconds, not '0'" --model m.pt --inputs x.pt --budget 0
without_torch 2 err "^triage-probe: --budget takes a positive number of seconds, not 'inf'" --model m.pt --inputs x.pt --budget inf
without_torch 2 err "^triage-probe: --lr takes a number of 0 or more, not '-0.1'" --model m.pt --inputs x.pt --lr -0.1
# A good number passes on to the next check (here the format's).
without_torch 2 err "^triage-probe: --format is text, json, markdown or html, not 'pdf'" --model m.pt --inputs x.pt --lr 0 --budget 2.5 --format pdf
without_torch 2 err "^triage-probe: --format is text, json, markdown or html, not 'pdf'" --model m.pt --inputs x.pt --format pdf

run --list
[ "$rc" -eq 0 ] || fail "--list exited $rc: $(tail -3 <<<"$trace")"
grep -q "^shape-trace" <<<"$out" || fail "--list printed: $(head -3 <<<"$out")"
loads_torch "$trace" || fail "--list should run the LibTorch part (or the check cannot see it)"
echo "triage-probe front: --help, --version and usage errors without LibTorch; --list through it"
