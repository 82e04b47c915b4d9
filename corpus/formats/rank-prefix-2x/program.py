# One rank of a data-parallel job, run as a plain process with RANK set; make.sh prefixes each rank's output
# with "[rankN]: " (PyTorch 2.x's per-rank prefix) and interleaves the ranks. Only rank 3 gets a bad batch.
import os

import torch
import torch.nn as nn

rank = int(os.environ["RANK"])
torch.manual_seed(rank)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 8))
for step in range(4):
    width = 31 if (rank == 3 and step == 2) else 32
    loss = model(torch.randn(16, width)).pow(2).mean()
    loss.backward()
    print(f"step {step} loss {loss.item():.4f}", flush=True)
