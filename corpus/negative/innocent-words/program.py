# A healthy run whose log is full of words other rules look for: error rate, nan checks,
# gradient norm, loss scale, "no NaN/Inf", "killed" stale jobs, checkpoint keys.
import math

import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(256, 6)
y = x @ torch.randn(6, 1)
model = nn.Linear(6, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
print("Scheduler: killed 0 stale jobs; resuming none")
print("nan_guard=enabled  anomaly_detection=off  loss_scale=1.0")
for epoch in range(5):
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
    opt.step()
    finite = math.isfinite(loss.item())
    print(f"epoch {epoch}: loss={loss.item():.4f} grad_norm={gnorm.item():.4f} "
          f"error rate: {0.05 / (epoch + 1):.3f} no NaN/Inf detected: {finite}")
print("Checkpoint keys: ['weight', 'bias'] (all present)")
print("Exploding-gradient monitor: max grad norm stayed below 10.0")
