import torch
import torch.nn as nn

# A training script written for PyTorch 2.x compiles its model; the environment has 1.13.
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 2))
print("torch", torch.__version__)
model = torch.compile(model)
print(model(torch.randn(4, 16)))
