# The loss tensor is appended to a history list every step instead of loss.item(). backward()
# runs with retain_graph=True, so each kept loss still holds its graph's saved activations:
# memory climbs step after step.
import resource
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
opt = torch.optim.SGD(model.parameters(), lr=1e-4)
history = []
for step in range(1, 61):
    x = torch.randn(4096, 32)
    out = model(x)
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward(retain_graph=True)
    opt.step()
    history.append(loss)                   # keeps the graph and its saved activations
    if step % 5 == 0:
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"step {step:4d} | loss {loss.item():.4f} | max RSS {rss_mb:8.1f} MB")
