import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
x = torch.randn(96, 20)
y = torch.randint(1, 10, (96,))
y[50] = 10
loader = DataLoader(TensorDataset(x, y), batch_size=8)
model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 10))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
for step, (xb, yb) in enumerate(loader):
    opt.zero_grad()
    loss = criterion(model(xb), yb)
    loss.backward()
    opt.step()
    print(f"step {step:3d} | loss {loss.item():.4f} | max label {yb.max().item()}")
