# A fallback path that fails while the first failure is being handled:
# Python prints both tracebacks joined by "During handling of the above exception ...".
import torch
import torch.nn as nn

model = nn.Sequential(nn.Flatten(), nn.Linear(64, 10))
batch = torch.randn(8, 4, 4, 4)


def forward_fast(x):
    return model.half()(x.half())


def forward_safe(x):
    return model.float()(x.float().view(-1, 128))


try:
    out = forward_fast(batch)
except RuntimeError:
    out = forward_safe(batch)
