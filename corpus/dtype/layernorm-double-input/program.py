import torch
import torch.nn as nn

torch.manual_seed(0)
block = nn.Sequential(nn.LayerNorm(16), nn.Linear(16, 16))
position = torch.arange(10, dtype=torch.float64).unsqueeze(1) / 10.0
tokens = torch.randn(10, 16) + position
print(block(tokens).shape)
