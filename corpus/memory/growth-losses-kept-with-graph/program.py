# The loss tensor (with its whole graph) is appended to a history list every step instead
# of loss.item(); each step's activations stay reachable, so memory climbs step after step.
import resource
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(512, 2048), nn.ReLU(), nn.Linear(2048, 512), nn.ReLU(), nn.Linear(512, 1))
opt = torch.optim.SGD(model.parameters(), lr=1e-4)
history = []
for step in range(1, 121):
    x = torch.randn(256, 512)
    out = model(x)
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward(retain_graph=True)
    opt.step()
    history.append(loss)                   # keeps the graph and its saved activations
    if step % 20 == 0:
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"step {step:4d} | loss {loss.item():.4f} | max RSS {rss_mb:8.1f} MB")
