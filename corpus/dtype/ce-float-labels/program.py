import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(0)
torch.manual_seed(0)
table = rng.normal(size=(100, 9)).astype(np.float32)
table[:, -1] = rng.integers(0, 3, size=100)
x = torch.from_numpy(table[:, :-1])
y = torch.from_numpy(table[:, -1])
loader = DataLoader(TensorDataset(x, y), batch_size=20)
model = nn.Linear(8, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for xb, yb in loader:
    opt.zero_grad()
    loss = nn.CrossEntropyLoss()(model(xb), yb)
    loss.backward()
    opt.step()
