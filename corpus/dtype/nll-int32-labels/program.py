import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
labels = torch.from_numpy(np.array([2, 0, 1, 1, 2, 0], dtype=np.int32))
model = nn.Linear(5, 3)
log_probs = F.log_softmax(model(torch.randn(6, 5)), dim=1)
loss = F.nll_loss(log_probs, labels)
print(loss.item())
