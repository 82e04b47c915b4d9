import torch
import torch.nn as nn

# Four 2x2 max-pools on 16x16 inputs leave a 1x1 map; the fifth pool has nothing to reduce.
features = nn.Sequential(*[nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
                           for c_in, c_out in [(1, 8), (8, 16), (16, 32), (32, 64), (64, 64)]])
x = torch.randn(2, 1, 16, 16)
print(features(x).shape)
