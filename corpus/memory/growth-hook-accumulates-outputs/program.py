# A forward hook stores every layer output (still attached to the graph) for "debugging"
# and is never removed; memory grows with every batch.
import resource
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1),
                      nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10))
captured = []
model[1].register_forward_hook(lambda m, i, o: captured.append(o))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for it in range(1, 61):
    x = torch.randn(32, 3, 32, 32)
    y = torch.randint(0, 10, (32,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if it % 5 == 0:
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"iter {it:3d}  loss={loss.item():.3f}  captured={len(captured)}  maxrss={rss_mb:.0f}MB")
