# Healthy run: Adam with a linear warm-up to a fairly high peak learning rate, then cosine decay.
# The loss bumps up briefly around the peak and then keeps falling: a normal warm-up shape.
import math
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(4096, 32)
labels = x[:, :10].argmax(dim=1)
model = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 10))
opt = torch.optim.Adam(model.parameters(), lr=0.0)
peak, warmup, total = 0.03, 60, 600
for step in range(1, total + 1):
    if step <= warmup:
        lr = peak * step / warmup
    else:
        lr = 0.5 * peak * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))
    for g in opt.param_groups:
        g["lr"] = lr
    idx = torch.randint(0, 4096, (128,))
    loss = nn.functional.cross_entropy(model(x[idx]), labels[idx])
    opt.zero_grad()
    loss.backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
    opt.step()
    if step % 10 == 0:
        print(f"step={step} loss={loss.item():.4f} grad_norm={grad_norm.item():.3f} lr={lr:.6f}")
