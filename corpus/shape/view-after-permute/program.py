import torch
import torch.nn as nn

torch.manual_seed(0)
conv = nn.Conv2d(3, 8, 3, padding=1)
x = conv(torch.randn(2, 3, 6, 6))
pixels = x.permute(0, 2, 3, 1).view(-1, 8)
print(pixels.shape)
