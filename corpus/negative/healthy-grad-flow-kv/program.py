# Healthy counterpart of the vanishing-gradient cases: ReLU MLP of the same depth with Kaiming init.
# The per-layer mean |grad| stays within one or two orders of magnitude from first to last layer.
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)

X = torch.randn(1024, 64)
y = (X @ torch.randn(64, 10)).argmax(1)

layers, d = [], 64
for _ in range(6):
    lin = nn.Linear(d, 256)
    nn.init.kaiming_normal_(lin.weight, nonlinearity="relu")
    nn.init.zeros_(lin.bias)
    layers += [lin, nn.ReLU()]
    d = 256
layers.append(nn.Linear(d, 10))
model = nn.Sequential(*layers)
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

for epoch in range(1, 6):
    total = 0.0
    for i in range(0, 1024, 128):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(X[i:i + 128]), y[i:i + 128])
        loss.backward()
        total += loss.item()
        last = {n: p.grad.detach().clone() for n, p in model.named_parameters() if n.endswith("weight")}
        opt.step()
    print(f"epoch={epoch} loss={total / 8:.4f}")
    for n, g in last.items():
        print(f"epoch={epoch} layer={n} grad_mean_abs={g.abs().mean().item():.2e} grad_max_abs={g.abs().max().item():.2e}")
