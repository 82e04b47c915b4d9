import torch
from torch.func import functional_call, vmap, grad

# Per-sample gradients with torch.func (2.0+); on 1.x the same functions live in the separate functorch package.
model = torch.nn.Linear(4, 1)
params = dict(model.named_parameters())

def loss(p, x, y):
    return ((functional_call(model, p, (x,)) - y) ** 2).mean()

per_sample = vmap(grad(loss), in_dims=(None, 0, 0))(params, torch.randn(8, 4), torch.randn(8, 1))
print({k: v.shape for k, v in per_sample.items()})
