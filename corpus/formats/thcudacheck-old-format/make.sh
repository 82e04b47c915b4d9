#!/bin/sh
# Writes log.txt in the exact formats PyTorch 0.4-1.0 (THC/THCUNN, Python 3.6) printed for program.py:
# THCUNN's ClassNLLCriterion kernel assertion per failing thread, THCudaCheckWarn's "THCudaCheck FAIL
# file=... line=... error=59 : ..." line, and THError's "cuda runtime error (59) : ... at FILE:LINE".
set -eu
cd "$(dirname "$0")"
{
  for t in 1 7 16 22 30; do
    printf '%s\n' "/pytorch/aten/src/THCUNN/ClassNLLCriterion.cu:105: void cunn_ClassNLLCriterion_updateOutput_kernel(Dtype *, Dtype *, Dtype *, long *, Dtype *, int, int, int, int, long) [with Dtype = float, Acctype = float]: block: [0,0,0], thread: [$t,0,0] Assertion \`t >= 0 && t < n_classes\` failed."
  done
  cat <<'TEXT'
THCudaCheck FAIL file=/pytorch/aten/src/THC/generic/THCTensorCopy.cpp line=70 error=59 : device-side assert triggered
Traceback (most recent call last):
  File "program.py", line 14, in <module>
    print(step, loss.item())
RuntimeError: cuda runtime error (59) : device-side assert triggered at /pytorch/aten/src/THC/generic/THCTensorCopy.cpp:70
TEXT
} > log.txt
