import torch
import torch.nn as nn

model = nn.Linear(16, 1).cuda()
x = torch.randn(64, 16, device="cuda")
y = torch.randint(0, 2, (64, 1), device="cuda").float()
loss = nn.BCELoss()(model(x), y)  # raw logits, no sigmoid
print("loss", loss.item())
