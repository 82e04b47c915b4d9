# Unstable loss from bad batches: one of the data shards stores the target in millimetres instead
# of metres, so every batch drawn from it has targets 1000x too large. The loss spikes by orders
# of magnitude on those steps and the weights are thrown off each time.
import torch
import torch.nn as nn

torch.manual_seed(4)
x = torch.randn(6000, 12)
y = x[:, :3].sum(dim=1, keepdim=True) * 0.5 + 0.05 * torch.randn(6000, 1)
y[5000:] *= 1000.0  # shard 6 of 6 was exported in millimetres
model = nn.Sequential(nn.Linear(12, 64), nn.ReLU(), nn.Linear(64, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(1, 301):
    shard = torch.randint(0, 6, (1,)).item() if step % 23 == 0 else torch.randint(0, 5, (1,)).item()
    idx = shard * 1000 + torch.randint(0, 1000, (64,))
    loss = nn.functional.mse_loss(model(x[idx]), y[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"iter {step:4d} | shard {shard} | loss {loss.item():.4f}", flush=True)
