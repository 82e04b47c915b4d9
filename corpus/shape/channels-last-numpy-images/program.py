import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(0)
torch.manual_seed(0)
batch = rng.random((4, 32, 32, 3), dtype=np.float32)
x = torch.from_numpy(batch)
conv = nn.Conv2d(3, 16, kernel_size=3, padding=1)
features = conv(x)
print(features.shape)
