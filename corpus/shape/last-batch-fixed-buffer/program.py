import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
BATCH = 32


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(10, 1)
        self.offset = nn.Parameter(torch.zeros(BATCH, 1))

    def forward(self, x):
        return self.fc(x) + self.offset


data = TensorDataset(torch.randn(200, 10), torch.randn(200, 1))
loader = DataLoader(data, batch_size=BATCH)
model = Model()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step, (x, y) in enumerate(loader):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    print(f"step {step} batch {x.shape[0]} loss {loss.item():.4f}")
