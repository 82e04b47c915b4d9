#!/bin/sh
# Writes log.txt: a single CUDA device-assert line in the exact format PyTorch 2.x's index_select kernel
# (aten/src/ATen/native/cuda/Indexing.cu, CUDA_KERNEL_ASSERT) prints, as pasted alone into an issue.
set -eu
cd "$(dirname "$0")"
printf '%s\n' '../aten/src/ATen/native/cuda/Indexing.cu:1146: indexSelectLargeIndex: block: [16,0,0], thread: [64,0,0] Assertion `srcIndex < srcSelectDimSize` failed.' > log.txt
