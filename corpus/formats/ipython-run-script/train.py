# Run from IPython with %run: its traceback shows file frames as "File /path/train.py:11, in <module>".
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 10), nn.ReLU(), nn.Linear(10, 1))
x = torch.randn(16, 10)
loss = model(x).mean()
loss.backward()
grads = [p.grad for p in model.parameters()]
total = torch.stack(grads).norm()
