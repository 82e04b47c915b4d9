import torch
import torch.nn as nn

torch.manual_seed(0)
stem = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1),
    nn.BatchNorm2d(16),
    nn.ReLU(),
)
x = torch.randn(2, 3, 8, 8)
print(stem(x).shape)
