import torch
import torch.nn as nn

device = torch.device("cuda:1")  # copied from a two-GPU machine
model = nn.Linear(8, 2).to(device)
print(model(torch.randn(4, 8, device=device)))
