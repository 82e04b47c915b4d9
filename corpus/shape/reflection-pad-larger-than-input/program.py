import torch
import torch.nn as nn

# A decoder block with reflection padding 3 (a 7x7 conv) placed after the bottleneck, whose maps are 2x2.
head = nn.Sequential(nn.ReflectionPad2d(3), nn.Conv2d(64, 3, 7))
bottleneck = torch.randn(1, 64, 2, 2)
print(head(bottleneck).shape)
