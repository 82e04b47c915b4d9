import torch
import torch.nn as nn

torch.manual_seed(0)
head = nn.Sequential(
    nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.BatchNorm2d(32),
)
one_image = torch.randn(1, 3, 24, 24)
print(head(one_image).shape)
