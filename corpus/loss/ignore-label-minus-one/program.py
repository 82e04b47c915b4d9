import torch
import torch.nn as nn

torch.manual_seed(0)
logits = nn.Linear(16, 4)(torch.randn(6, 16))
targets = torch.tensor([0, 3, -1, 2, -1, 1])
loss = nn.CrossEntropyLoss()(logits, targets)
print(loss.item())
