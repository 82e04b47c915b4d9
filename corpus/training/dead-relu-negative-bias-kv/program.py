# ReLU MLP whose biases were initialised to -2 (meant to "sparsify" activations): most hidden units
# are negative for every input, output 0 and get no gradient, so they never recover. The script
# counts, per ReLU layer, the units that are zero for the whole evaluation batch.
import torch
import torch.nn as nn

torch.manual_seed(3)
torch.set_num_threads(1)

X = torch.randn(1024, 32)
y = (X @ torch.randn(32, 6)).argmax(1)

model = nn.Sequential(
    nn.Linear(32, 128), nn.ReLU(),
    nn.Linear(128, 128), nn.ReLU(),
    nn.Linear(128, 6),
)
for m in model:
    if isinstance(m, nn.Linear):
        nn.init.constant_(m.bias, -2.0)
opt = torch.optim.SGD(model.parameters(), lr=0.05)


def dead_report(step):
    acts = {}
    hooks = [model[i].register_forward_hook(lambda mod, inp, out, i=i: acts.__setitem__(f"relu{i // 2 + 1}", out))
             for i in (1, 3)]
    with torch.no_grad():
        model(X[:512])
    for h in hooks:
        h.remove()
    for name, a in acts.items():
        dead = (a <= 0).all(dim=0)
        print(f"step={step} layer={name} dead_units={int(dead.sum())}/{dead.numel()} dead_frac={dead.float().mean().item():.3f}")


for step in range(301):
    if step % 100 == 0:
        dead_report(step)
    idx = torch.randint(0, 1024, (64,))
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(X[idx]), y[idx])
    loss.backward()
    opt.step()
    if step % 50 == 0:
        print(f"step={step} loss={loss.item():.4f}")
