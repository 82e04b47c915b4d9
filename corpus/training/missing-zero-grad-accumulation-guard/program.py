# Bug in a gradient-accumulation loop: optimizer.step() runs every ACCUM micro-batches, but the
# zero_grad() is guarded by `micro % ACCUM == ACCUM`, which is never true, so gradients are never
# cleared. The gradient norm climbs with every update and the loss turns upward.
import torch
import torch.nn as nn

ACCUM = 4
torch.manual_seed(12)
x = torch.randn(8192, 16)
labels = ((x[:, 0] * x[:, 1]) > 0).long() * 2 + (x[:, 2] > 0).long()
model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
update = 0
for micro in range(1, 961):
    idx = torch.randint(0, 8192, (64,))
    loss = nn.functional.cross_entropy(model(x[idx]), labels[idx]) / ACCUM
    loss.backward()
    if micro % ACCUM == 0:
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
        opt.step()
        update += 1
        if micro % ACCUM == ACCUM:  # meant: always clear after stepping
            opt.zero_grad()
        if update % 5 == 0:
            print(f"update {update} | loss {loss.item() * ACCUM:.4f} | grad_norm {grad_norm.item():.3f}", flush=True)
