# Real, harmless warnings PyTorch prints during a normal run: a deprecated init function,
# copy-constructing a tensor from a tensor, and the DataLoader's advice about the number
# of worker processes. Training itself works.
import warnings

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

warnings.simplefilter("default")
torch.manual_seed(0)
layer = nn.Linear(8, 2)
nn.init.xavier_uniform(layer.weight)
base = torch.randn(64, 8)
x = torch.tensor(base)
y = torch.randint(0, 2, (64,))
loader = DataLoader(TensorDataset(x, y), batch_size=16, num_workers=4)
opt = torch.optim.SGD(layer.parameters(), lr=0.1)
for epoch in range(2):
    for xb, yb in loader:
        loss = nn.functional.cross_entropy(layer(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
