# A run that the kernel's OOM killer ends with SIGKILL (here the process sends it to itself): no Python
# traceback, only the shell's "Killed" after the last progress line. make.sh runs it under bash.
import os
import signal

import torch

torch.manual_seed(0)
buffers = []
for step in range(5):
    buffers.append(torch.randn(512, 512))
    print(f"step {step}: loss {buffers[-1].abs().mean().item():.4f}", flush=True)
os.kill(os.getpid(), signal.SIGKILL)
