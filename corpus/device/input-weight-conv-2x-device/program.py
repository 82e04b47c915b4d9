import torch
import torch.nn as nn

net = nn.Conv2d(3, 8, 3).cuda()
image = torch.randn(1, 3, 32, 32)
print(net(image).shape)
