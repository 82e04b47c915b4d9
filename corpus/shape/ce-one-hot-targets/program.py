import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Linear(20, 5)
x = torch.randn(6, 20)
labels = torch.randint(0, 5, (6,))
targets = F.one_hot(labels, num_classes=5)
loss = nn.CrossEntropyLoss()(model(x), targets)
print(loss.item())
