# Input-gradient saliency: torch.autograd.grad is asked for d(score)/d(image), but the image
# tensor was created without requires_grad=True, so autograd never tracked it.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10))
model.eval()
image = torch.rand(1, 3, 32, 32)
score = model(image)[0, 3]
print(f"class 3 score: {score.item():.4f}")
(saliency,) = torch.autograd.grad(score, image)
print(saliency.abs().amax(dim=1).shape)
