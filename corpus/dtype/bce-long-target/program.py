import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 1), nn.Sigmoid())
criterion = nn.BCELoss()
x = torch.randn(8, 4)
labels = torch.randint(0, 2, (8, 1))
for step in range(2):
    loss = criterion(model(x), labels)
    print(f"step {step} loss {loss.item():.4f}")
