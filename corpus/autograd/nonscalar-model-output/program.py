# Saliency map: backward() called directly on the model's logits.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 10))
img = torch.rand(1, 1, 28, 28, requires_grad=True)
logits = model(img)
logits.backward()
print(img.grad.abs().max())
