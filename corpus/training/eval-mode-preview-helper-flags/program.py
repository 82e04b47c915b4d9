# A helper that prints a few predictions every 50 steps calls model.eval() (copied from an inference
# notebook) and leaves it there: after the first preview the rest of training runs with Dropout off
# and BatchNorm frozen. The loop prints the training flag of each Dropout/BatchNorm module.
import torch
import torch.nn as nn

torch.manual_seed(8)
torch.set_num_threads(1)

X = torch.randn(2048, 16)
y = (X @ torch.randn(16, 4)).argmax(1)

model = nn.Sequential(
    nn.Linear(16, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.2),
    nn.Linear(64, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.2),
    nn.Linear(64, 4),
)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


def preview(model, step):
    model.eval()
    with torch.no_grad():
        pred = model(X[:6]).argmax(1).tolist()
    print(f"[preview step {step}] pred={pred} target={y[:6].tolist()}")


def mode_flags(model):
    return " ".join(f"{type(m).__name__}({n}).training={m.training}" for n, m in model.named_modules()
                    if isinstance(m, (nn.Dropout, nn.BatchNorm1d)))


model.train()
for step in range(151):
    idx = torch.randint(0, 2048, (64,))
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(X[idx]), y[idx])
    loss.backward()
    opt.step()
    if step % 25 == 0:
        print(f"train step {step:3d} loss {loss.item():.4f} | {mode_flags(model)}")
    if step % 50 == 0 and step > 0:
        preview(model, step)
