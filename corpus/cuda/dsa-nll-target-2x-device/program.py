import torch
import torch.nn as nn

num_classes = 5
model = nn.Linear(16, num_classes).cuda()
x = torch.randn(32, 16, device="cuda")
y = torch.randint(1, num_classes + 1, (32,), device="cuda")  # labels 1..5 instead of 0..4
loss = nn.CrossEntropyLoss()(model(x), y)
loss.backward()
print("loss", loss.item())
