import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(6, 10)
x = torch.randn(4, 6)
target = torch.randn(4, 3)
loss = nn.MSELoss()(model(x), target)
loss.backward()
