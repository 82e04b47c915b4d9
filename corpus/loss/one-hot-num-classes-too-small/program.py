import torch
import torch.nn.functional as F

torch.manual_seed(0)
labels = torch.tensor([0, 2, 3, 1])
targets = F.one_hot(labels, num_classes=3).float()
logits = torch.randn(4, 3, requires_grad=True)
loss = F.binary_cross_entropy_with_logits(logits, targets)
loss.backward()
