# Bug: Adam with lr=0.3 (a hundred times the usual 1e-3) on a small classifier: each update overshoots,
# so the loss swings up and down by large factors instead of settling. Metrics printed as JSON lines.
import json
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(4096, 32)
labels = x[:, :4].argmax(dim=1)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))
opt = torch.optim.Adam(model.parameters(), lr=0.3)
for step in range(1, 301):
    idx = torch.randint(0, 4096, (128,))
    loss = nn.functional.cross_entropy(model(x[idx]), labels[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 3 == 0:
        print(json.dumps({"step": step, "loss": round(loss.item(), 4), "lr": 0.3}))
