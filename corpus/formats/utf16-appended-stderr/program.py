# A real run: progress on stdout, then a traceback on stderr. make.sh keeps stdout as UTF-8 and appends
# stderr as UTF-16LE with CRLF, as Windows PowerShell 5's `2>> log.txt` appends to a log a UTF-8 writer began.
import sys

import torch

head = torch.nn.Linear(8, 4)
for step in range(3):
    print(f"step {step} loss {1.0 / (step + 1):.4f}", flush=True)
features = torch.randn(2, 6)
logits = head(features)
