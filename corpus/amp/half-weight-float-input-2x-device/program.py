import torch
import torch.nn as nn

model = nn.Linear(64, 10).cuda().half()
x = torch.randn(4, 64, device="cuda")
print(model(x))
