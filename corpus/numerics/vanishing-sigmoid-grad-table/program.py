# Five sigmoid hidden layers, default init, Adam. After the first backward the script prints the
# gradient-flow table (mean and max |grad| per weight) before training on.
import torch
import torch.nn as nn

torch.manual_seed(2)
torch.set_num_threads(1)

X = torch.randn(512, 20)
y = (X @ torch.randn(20, 5)).argmax(1)

model = nn.Sequential(
    nn.Linear(20, 256), nn.Sigmoid(),
    nn.Linear(256, 256), nn.Sigmoid(),
    nn.Linear(256, 256), nn.Sigmoid(),
    nn.Linear(256, 256), nn.Sigmoid(),
    nn.Linear(256, 256), nn.Sigmoid(),
    nn.Linear(256, 5),
)
opt = torch.optim.Adam(model.parameters(), lr=1e-4)


def check_gradient_flow(model):
    print(f"{'layer':<12s} | {'Avg':>9s} | {'Max':>9s}")
    for n, p in model.named_parameters():
        if p.grad is not None and "bias" not in n:
            print(f"{n:<12s} | Avg: {p.grad.abs().mean().item():.2e} | Max: {p.grad.abs().max().item():.2e}")


for it in range(200):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(X), y)
    loss.backward()
    if it == 0:
        check_gradient_flow(model)
    opt.step()
    if it % 40 == 0 or it == 199:
        print(f"iter {it:3d}  loss {loss.item():.4f}")
