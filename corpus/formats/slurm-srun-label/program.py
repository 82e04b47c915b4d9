# One task of a 4-task SLURM step; make.sh shows it the way `srun --label` prefixes each task's lines.
import os

import torch
import torch.nn as nn

task = int(os.environ["TASK"])
torch.manual_seed(task)
model = nn.Sequential(nn.Linear(24, 24), nn.ReLU(), nn.Linear(24, 6))
targets = torch.randint(0, 6, (32,))
if task == 2:
    targets[7] = -3
for step in range(2):
    loss = nn.functional.nll_loss(model(torch.randn(32, 24)).log_softmax(dim=1), targets)
    print(f"step {step}: loss {loss.item():.4f}", flush=True)
