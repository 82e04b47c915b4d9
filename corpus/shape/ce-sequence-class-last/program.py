import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
encoder = nn.GRU(16, 32, batch_first=True)
classifier = nn.Linear(32, 10)
x = torch.randn(4, 7, 16)
tags = torch.randint(0, 10, (4, 7))
h, _ = encoder(x)
logits = classifier(h)
loss = F.cross_entropy(logits, tags)
print(loss.item())
