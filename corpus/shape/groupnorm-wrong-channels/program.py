import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1),
    nn.GroupNorm(4, 16),
    nn.SiLU(),
)
print(encoder(torch.randn(2, 3, 4, 4)).shape)
