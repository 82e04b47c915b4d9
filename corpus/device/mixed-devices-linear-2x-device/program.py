import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 2)).to("cuda")
batch = torch.randn(8, 10)  # never moved to the GPU
print(model(batch))
