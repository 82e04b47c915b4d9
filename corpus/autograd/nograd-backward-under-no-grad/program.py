# The training step is called from inside a `with torch.no_grad():` block
# that was meant for the validation pass.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x, y = torch.randn(16, 10), torch.randn(16, 1)


def train_step():
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    return loss.item()


print("step 0 loss", round(train_step(), 4))
with torch.no_grad():
    val = nn.functional.mse_loss(model(x), y).item()
    print("val loss", round(val, 4))
    print("step 1 loss", round(train_step(), 4))
