# Hard-example mining keeps each batch's logits in a dict for later re-weighting, but stores the
# live output tensor instead of a detached copy. Because backward runs with retain_graph=True (left
# over from an experiment), each cached tensor's graph still holds that step's saved activations,
# so resident memory grows with every batch.
import resource
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
cache = {}
for step in range(1, 61):
    x = torch.randn(4096, 32)
    y = torch.randint(0, 10, (4096,))
    logits = model(x)
    loss = nn.functional.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward(retain_graph=True)
    opt.step()
    cache[step] = logits                     # should be logits.detach()
    if step % 5 == 0:
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print({"step": step, "loss": round(loss.item(), 4), "cached": len(cache), "max_rss_mb": round(rss, 1)})
