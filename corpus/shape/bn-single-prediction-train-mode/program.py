import torch
import torch.nn as nn

torch.manual_seed(0)


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x)


model = Regressor()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(128, 8), torch.randn(128, 1)
for epoch in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")

sample = torch.randn(1, 8)
print("prediction:", model(sample).item())
