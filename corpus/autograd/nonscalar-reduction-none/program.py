# Per-sample losses (reduction='none') are backpropagated without reducing them.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(6, 4)
criterion = nn.CrossEntropyLoss(reduction="none")   # kept per-sample for weighting
x = torch.randn(12, 6)
y = torch.randint(0, 4, (12,))
losses = criterion(model(x), y)
print("per-sample losses:", tuple(losses.shape))
losses.backward()
