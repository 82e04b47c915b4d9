# Bug: a large MLP trained on 64 noisy samples, no regularisation: training loss falls towards 0
# while validation loss bottoms out after a few epochs and then climbs. Progress printed in
# PyTorch Lightning's layout (a tqdm bar per epoch with train_loss / val_loss in the postfix).
import torch
import torch.nn as nn
from tqdm import tqdm

torch.manual_seed(0)
w = torch.randn(20, 1)
def make(n):
    x = torch.randn(n, 20)
    return x, ((x @ w).squeeze(1) + 1.5 * torch.randn(n) > 0).float()
xt, yt = make(64)
xv, yv = make(512)
model = nn.Sequential(nn.Linear(20, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
bce = nn.BCEWithLogitsLoss()
val_loss = None
for epoch in range(30):
    bar = tqdm(range(4), desc=f"Epoch {epoch}", mininterval=0, ncols=120)
    for i in bar:
        xb, yb = xt[i * 16:(i + 1) * 16], yt[i * 16:(i + 1) * 16]
        loss = bce(model(xb).squeeze(1), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            if i == 3:
                val_loss = bce(model(xv).squeeze(1), yv).item()
        shown = f"loss={loss.item():.3f}, v_num=0, train_loss={loss.item():.3f}"
        if val_loss is not None:  # Lightning shows val_loss once the first validation ran
            shown += f", val_loss={val_loss:.3f}"
        bar.set_postfix_str(shown)
