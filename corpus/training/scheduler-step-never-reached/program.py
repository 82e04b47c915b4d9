# Gradient accumulation with an off-by-one condition: `(i + 1) % accum == 0` was written as
# `i % accum == accum`, which is never true, so optimizer.step() never runs. The scheduler
# is stepped every epoch, and PyTorch warns that it was stepped before the optimizer.
import torch
import torch.nn as nn

torch.manual_seed(0)
data = torch.randn(256, 16)
target = data.sum(1, keepdim=True)
model = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 1))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
accum = 4
for epoch in range(4):
    running = 0.0
    for i in range(16):
        xb, yb = data[i * 16:(i + 1) * 16], target[i * 16:(i + 1) * 16]
        loss = nn.functional.mse_loss(model(xb), yb) / accum
        loss.backward()
        running += loss.item() * accum
        if i % accum == accum:
            opt.step()
            opt.zero_grad()
    sched.step()
    print(f"[epoch {epoch}] mse={running / 16:.4f}", flush=True)
