import torch
import torch.nn.functional as F

# A single sample's logits (num_classes,) scored against a one-element label tensor.
logits = torch.randn(10)
label = torch.tensor([3])
loss = F.nll_loss(F.log_softmax(logits, dim=0), label)
