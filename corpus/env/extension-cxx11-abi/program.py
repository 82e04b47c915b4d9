# An extension built against a different libtorch ABI than the one installed: here it is
# compiled with -D_GLIBCXX_USE_CXX11_ABI=0 (the pre-cxx11 std::string ABI that older pip
# wheels used), while this torch is built with the cxx11 ABI, so a c10 symbol it needs
# does not exist in libc10. The same error appears when an extension wheel was built for
# another torch release.
import os
import subprocess
import sys
import sysconfig
import tempfile

import torch
from torch.utils.cpp_extension import include_paths

here = os.path.dirname(os.path.abspath(__file__))
build = tempfile.mkdtemp()
cmd = ["g++", "-shared", "-fPIC", "-O0", "-std=c++17", "-D_GLIBCXX_USE_CXX11_ABI=0",
       "-I" + sysconfig.get_paths()["include"]] + ["-I" + p for p in include_paths()] + [
       os.path.join(here, "fused_ops.cpp"), "-o", os.path.join(build, "fused_ops.so")]
subprocess.run(cmd, check=True, stderr=subprocess.DEVNULL)
sys.path.insert(0, build)
print(f"torch {torch.__version__}: importing fused_ops", flush=True)
import fused_ops  # noqa: E402

fused_ops.check_positive(3)
