# Bug: optimizer.zero_grad() sits above the epoch loop, so it runs once; every later backward()
# accumulates into the same .grad. Logged per 10 steps in a "Epoch e | step s | ..." layout.
import torch
import torch.nn as nn

torch.manual_seed(1)
x = torch.randn(4096, 20)
labels = (x[:, :3].sum(dim=1) > 0).long()
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.2)
opt.zero_grad()
step = 0
for epoch in range(1, 4):
    for i in range(60):
        idx = torch.randint(0, 4096, (128,))
        loss = nn.functional.cross_entropy(model(x[idx]), labels[idx])
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
        opt.step()
        step += 1
        if step % 10 == 0:
            print(f"Epoch {epoch} | step {step} | loss {loss.item():.4f} | grad_norm {grad_norm.item():.3f}", flush=True)
