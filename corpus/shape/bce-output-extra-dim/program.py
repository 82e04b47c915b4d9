import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(12, 8), nn.ReLU(), nn.Linear(8, 1), nn.Sigmoid())
criterion = nn.BCELoss()
x = torch.randn(16, 12)
y = torch.randint(0, 2, (16,)).float()
for epoch in range(3):
    prob = model(x)
    loss = criterion(prob, y)
    print(f"epoch {epoch}: loss {loss.item():.4f}")
