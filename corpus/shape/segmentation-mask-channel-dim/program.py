import torch
import torch.nn as nn

# Segmentation: masks loaded as (N, 1, H, W) class indices, the logits as (N, C, H, W).
logits = torch.randn(4, 5, 32, 32, requires_grad=True)
masks = torch.randint(0, 5, (4, 1, 32, 32))
loss = nn.CrossEntropyLoss()(logits, masks)
loss.backward()
