import torch
import torch.nn as nn

# A tiny mixture-of-experts layer run under CPU autocast (bfloat16): the experts' Linear outputs come
# out in bfloat16, while the buffer that sums them was created from the float32 input.
torch.manual_seed(0)
experts = nn.ModuleList([nn.Linear(8, 8) for _ in range(2)])
x = torch.randn(6, 8)
route = torch.tensor([0, 1, 0, 1, 1, 0])
with torch.autocast("cpu", dtype=torch.bfloat16):
    out = torch.zeros_like(x)
    for e, expert in enumerate(experts):
        idx = (route == e).nonzero().squeeze(1)
        y = expert(x[idx])
        out.index_add_(0, idx, y)
print(out.sum())
