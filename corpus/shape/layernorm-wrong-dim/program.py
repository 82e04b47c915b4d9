import torch
import torch.nn as nn

torch.manual_seed(0)
proj = nn.Linear(32, 8)
norm = nn.LayerNorm(16)
h = proj(torch.randn(2, 32))
print(norm(h))
