import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(0)
torch.manual_seed(0)
pixels = rng.random((2, 3, 16, 16)) / 255.0
batch = torch.tensor(pixels)
conv = nn.Conv2d(3, 8, 3)
print(conv(batch).shape)
