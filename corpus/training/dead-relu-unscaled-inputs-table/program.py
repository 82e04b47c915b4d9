# Raw, unnormalised features (pixel-like values in 0..255) into a ReLU MLP trained with Adam at
# lr=0.01: the first updates are huge relative to the inputs' scale and knock most units into the
# negative region for every sample. After each epoch the script prints a per-layer dead-unit table.
import torch
import torch.nn as nn

torch.manual_seed(5)
torch.set_num_threads(1)

X = torch.randint(0, 256, (1536, 48)).float()
y = ((X[:, :24].mean(1) - X[:, 24:].mean(1)) > 0).long() + 2 * (X[:, ::2].mean(1) > 127.5).long()

model = nn.Sequential(
    nn.Linear(48, 128), nn.ReLU(),
    nn.Linear(128, 64), nn.ReLU(),
    nn.Linear(64, 4),
)
opt = torch.optim.Adam(model.parameters(), lr=0.01)


def dead_table(epoch):
    outs = []
    hooks = [m.register_forward_hook(lambda mod, i, o: outs.append(o)) for m in model if isinstance(m, nn.ReLU)]
    with torch.no_grad():
        model(X[:512])
    for h in hooks:
        h.remove()
    print(f"dead unit check after epoch {epoch} (512 samples)")
    print(f"{'layer':<6} {'type':<5} {'units':>5} {'dead':>5} {'dead%':>7}")
    for k, o in enumerate(outs):
        dead = (o <= 0).all(dim=0)
        print(f"act{k + 1:<3} ReLU  {dead.numel():>5} {int(dead.sum()):>5} {100 * dead.float().mean().item():>6.1f}%")


for epoch in range(1, 4):
    for b, i in enumerate(range(0, 1536, 128)):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(X[i:i + 128]), y[i:i + 128])
        loss.backward()
        opt.step()
        if b % 2 == 0:
            print(f"epoch {epoch} batch {b:2d} loss {loss.item():.4f}")
    dead_table(epoch)
