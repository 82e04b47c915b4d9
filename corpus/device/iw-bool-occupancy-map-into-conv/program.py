# A bird's-eye-view occupancy map is built with a comparison (bool) and fed to a Conv2d as is.
import torch
import torch.nn as nn

torch.manual_seed(0)
heights = torch.rand(2, 1, 64, 64)
occupancy = heights > 0.7                                     # bool map
encoder = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU())
print("occupied cells:", int(occupancy.sum()))
z = encoder(occupancy)
