# An extension wheel built for a CUDA build of torch, installed next to a CPU-only torch
# (this Debian build): it was linked against libc10_cuda.so, which a CPU-only torch does not
# ship. The build machine is imitated by linking against an empty stand-in libc10_cuda.so in
# a build directory that is not on the loader path at run time.
import os
import subprocess
import sys
import sysconfig
import tempfile

import torch

here = os.path.dirname(os.path.abspath(__file__))
build = tempfile.mkdtemp()
stub_src = os.path.join(build, "stub.c")
with open(stub_src, "w") as f:
    f.write("int c10_cuda_stub_symbol(void) { return 0; }\n")
subprocess.run(["gcc", "-shared", "-fPIC", stub_src, "-o", os.path.join(build, "libc10_cuda.so")], check=True)
subprocess.run(["g++", "-shared", "-fPIC", "-I" + sysconfig.get_paths()["include"],
                os.path.join(here, "cuda_ops.cpp"), "-L" + build, "-lc10_cuda",
                "-o", os.path.join(build, "cuda_ops.so")], check=True)
os.remove(os.path.join(build, "libc10_cuda.so"))
sys.path.insert(0, build)
print(f"torch {torch.__version__} (CUDA: {torch.version.cuda}); importing cuda_ops", flush=True)
import cuda_ops  # noqa: E402

print(cuda_ops.device_count())
