# The "loss" is computed from argmax predictions (an integer, non-differentiable path).
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(12, 3)
x = torch.randn(20, 12)
y = torch.randint(0, 3, (20,))
pred = model(x).argmax(dim=1)
loss = 1.0 - (pred == y).float().mean()       # accuracy-based loss: no graph
print(f"loss {loss.item():.4f}")
loss.backward()
