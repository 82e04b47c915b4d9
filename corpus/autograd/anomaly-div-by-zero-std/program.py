# Per-sample standardisation guarded with torch.where so constant rows (std = 0) give 0
# in the forward pass. The forward is finite, but the masked-out branch x / std still
# gets a zero gradient, and its backward computes 0 / 0 = NaN. Anomaly mode names it.
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.autograd.set_detect_anomaly(True)
model = nn.Linear(5, 5)
x = torch.randn(4, 5)
h = model(x)
h = torch.cat([h[:2], torch.ones(1, 5) + 0 * h[2:3], h[3:]])   # one constant row
centered = h - h.mean(dim=1, keepdim=True)
std = h.std(dim=1, keepdim=True)
z = torch.where(std > 0, centered / std, torch.zeros_like(centered))
loss = z.pow(2).mean()
print(f"loss: {loss.item():.4f}")
loss.backward()
