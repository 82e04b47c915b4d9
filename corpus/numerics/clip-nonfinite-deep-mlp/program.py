# A 30-layer MLP without normalisation, initialised with too large a weight scale:
# activations and gradients grow layer by layer until they overflow float32. The
# training loop clips gradients with error_if_nonfinite=True.
import torch
import torch.nn as nn

torch.manual_seed(0)
layers = []
for _ in range(30):
    lin = nn.Linear(64, 64)
    nn.init.normal_(lin.weight, std=0.8)
    layers += [lin, nn.ReLU()]
model = nn.Sequential(*layers, nn.Linear(64, 10))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
print("model: 30 x Linear(64, 64) + ReLU, init std=0.8", flush=True)
for step in range(5):
    x, y = torch.randn(32, 64), torch.randint(0, 10, (32,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    print(f"iter {step}: loss={loss.item():.3e}", flush=True)
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)
    opt.step()
