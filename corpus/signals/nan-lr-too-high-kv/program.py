# Bug: the learning rate warms up to a peak far too high for this regression net; once warm-up ends
# the updates overshoot, the gradient norm grows by orders of magnitude and the loss becomes NaN.
# Printed as plain key=value pairs.
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(2048, 16)
y = x @ torch.randn(16, 1) + 0.1 * torch.randn(2048, 1)
model = nn.Sequential(nn.Linear(16, 64), nn.Tanh(), nn.Linear(64, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.0)
peak_lr, warmup = 0.3, 200
for step in range(1, 401):
    lr = peak_lr * min(1.0, step / warmup)
    for group in opt.param_groups:
        group["lr"] = lr
    idx = torch.randint(0, 2048, (64,))
    loss = nn.functional.mse_loss(model(x[idx]), y[idx])
    opt.zero_grad()
    loss.backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
    opt.step()
    if step % 10 == 0:
        print(f"step={step} loss={loss.item():.6f} grad_norm={grad_norm.item():.4f} lr={lr:.5f}")
