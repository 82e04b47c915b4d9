#!/usr/bin/env bash
# Usage: html_report_in_browser.sh TRIAGE SOURCE_DIR PYTHON CHROMIUM OUT_DIR [TRIAGE_PROBE]
# Renders `triage --format html` for several corpus cases (one page holding all of them, and one case
# alone) and, given TRIAGE_PROBE (a build with LibTorch), `triage-probe --format html` of a checkup on
# corpus/programs/scripted/dead_mlp.pt (dead ReLUs and exploding gradients: the per-layer bar charts),
# and checks the pages in headless Chromium at 375 px and 1280 px with check_report.py (console,
# overflow, plot points and lines, bars); screenshots go to OUT_DIR. CHROMIUM empty: a skip.
# To refresh the README's screenshots: run this with OUT_DIR=/tmp/x, then copy /tmp/x/report-375.png
# and report-1280.png to docs/; docs/report-probes-1280.png is /tmp/x/probes.html with its <details>
# opened (sed 's/<details>/<details open>/'), captured by chromium --headless --window-size=1280,1500.
set -euo pipefail
triage=$1 src=$2 python=$3 chromium=$4 out=$5 probe=${6:-}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
cases=(numerics/nan-loss-printed-epochs training/softmax-output-into-cross-entropy shape/linear-flattened-conv
       cuda/arch-no-kernel-image-sm89-formatted distributed/ddp-unused-branch data/collate-image-sizes-worker
       signals/not-learning-no-step-hf-dict)
logs=()
for c in "${cases[@]}"; do logs+=("$src/corpus/$c/log.txt"); done
# Exit status 0: a diagnosis was found in every input (the pages must have something to show).
(cd "$src" && "$triage" --format html "${logs[@]/#$src\//}") > "$out/several.html"
(cd "$src" && "$triage" --format html "corpus/${cases[0]}/log.txt") > "$out/report.html"
pages=("$out/several.html" "$out/report.html")
bar_charts=0
if [ -n "$probe" ] && [ -n "$chromium" ]; then
  scripted=corpus/programs/scripted
  # Exit status 1: the checkup found something (the planted faults).
  status=0
  (cd "$src" && OMP_NUM_THREADS=1 "$probe" --model $scripted/dead_mlp.pt --inputs $scripted/x.pt --targets $scripted/y.pt \
    --format html) > "$out/probes.html" || status=$?
  if [ "$status" -ne 1 ]; then
    echo "triage-probe exited $status on dead_mlp.pt, expected 1 (a diagnosis)"
    exit 1
  fi
  pages+=("$out/probes.html")
  bar_charts=2  # grad_norm and dead_fraction
fi
exec "$python" "$here/check_report.py" --chromium "$chromium" --min-plots 3 --min-bar-charts $bar_charts \
  --screenshots "$out" "${pages[@]}"
