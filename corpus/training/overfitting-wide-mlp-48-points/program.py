# Overfitting: a 3-layer MLP with 256 hidden units memorises 48 noisy training points; the
# held-out loss bottoms out after a few epochs and then climbs while the training loss keeps
# falling. One line per epoch.
import torch
import torch.nn as nn

torch.manual_seed(5)
w = torch.randn(10, 1)
def make(n):
    x = torch.randn(n, 10)
    return x, x @ w + 0.8 * torch.randn(n, 1)
x_tr, y_tr = make(48)
x_va, y_va = make(512)
model = nn.Sequential(nn.Linear(10, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(1, 41):
    for i in range(0, 48, 8):
        loss = nn.functional.mse_loss(model(x_tr[i:i + 8]), y_tr[i:i + 8])
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        train_loss = nn.functional.mse_loss(model(x_tr), y_tr).item()
        val_loss = nn.functional.mse_loss(model(x_va), y_va).item()
    print(f"epoch {epoch:3d}  train_loss {train_loss:.4f}  val_loss {val_loss:.4f}", flush=True)
