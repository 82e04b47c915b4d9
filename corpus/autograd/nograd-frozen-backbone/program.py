# Fine-tuning: every parameter is frozen (requires_grad=False), including the new head.
import torch
import torch.nn as nn

torch.manual_seed(0)
backbone = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
head = nn.Linear(8, 4)
model = nn.Sequential(backbone, head)
for p in model.parameters():
    p.requires_grad = False            # meant to freeze only the backbone

x = torch.randn(6, 3, 16, 16)
y = torch.randint(0, 4, (6,))
loss = nn.CrossEntropyLoss()(model(x), y)
print(f"loss {loss.item():.4f}")
loss.backward()
