import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(0)
torch.manual_seed(0)
features = rng.normal(size=(32, 6))
targets = rng.normal(size=(32, 1))
x = torch.from_numpy(features)
y = torch.from_numpy(targets)
model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
print("x dtype:", x.dtype)
loss = nn.functional.mse_loss(model(x), y)
loss.backward()
