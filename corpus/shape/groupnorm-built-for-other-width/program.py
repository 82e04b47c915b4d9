import torch
import torch.nn as nn

# GroupNorm built for 64 channels after a conv that was changed to 48 output channels.
block = nn.Sequential(nn.Conv2d(3, 48, 3, padding=1), nn.GroupNorm(32, 64), nn.SiLU())
print(block(torch.randn(2, 3, 16, 16)).shape)
