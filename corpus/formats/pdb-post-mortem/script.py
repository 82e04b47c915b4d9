# Run under `python3 -m pdb`: the traceback is followed by pdb's post-mortem prompt and commands.
import torch
import torch.nn as nn

net = nn.Sequential(nn.Linear(20, 50), nn.ReLU(), nn.Linear(50, 3))
x = torch.randn(5, 20, dtype=torch.float64)
y = net(x)
