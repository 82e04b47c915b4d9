#!/bin/sh
# Writes log.txt in the exact formats a CUDA build of PyTorch 2.x prints for program.py (no GPU here):
# the CUDA runtime's device-assert line per failing thread (the nll_loss 2d kernel runs one block of 32
# threads), written to stdout and flushed at the sync, so in a merged log some land after the Python
# traceback on stderr; then the traceback (Python 3.10: no caret lines) and c10's CUDA error text.
set -eu
cd "$(dirname "$0")"
assert_line() {
  printf '%s\n' "../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [$1,0,0] Assertion \`t >= 0 && t < n_classes\` failed."
}
{
  for t in 0 2 3 5 6 9 11 12 14 15 17 20 21 22 24 26 27; do assert_line "$t"; done
  cat <<'TEXT'
Traceback (most recent call last):
  File "/home/alice/proj/program.py", line 16, in <module>
    running += loss.item()
RuntimeError: CUDA error: device-side assert triggered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1.
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.

TEXT
  for t in 28 29 30 31; do assert_line "$t"; done
} > log.txt
