# The script runs a quick sanity forward under model.eval() before training and never switches back:
# the whole training loop then runs with Dropout off and BatchNorm using (and never updating) its
# running statistics. The user logs model.training next to the loss.
import torch
import torch.nn as nn

torch.manual_seed(6)
torch.set_num_threads(1)

X = torch.randn(1024, 30)
y = (X @ torch.randn(30, 5)).argmax(1)
Xv = torch.randn(256, 30)
yv = (Xv @ torch.randn(30, 5)).argmax(1)

model = nn.Sequential(
    nn.Linear(30, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.5),
    nn.Linear(128, 5),
)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

model.eval()
with torch.no_grad():
    print(f"sanity check: output shape {tuple(model(X[:4]).shape)}")

for epoch in range(1, 4):
    for step, i in enumerate(range(0, 1024, 64)):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(X[i:i + 64]), y[i:i + 64])
        loss.backward()
        opt.step()
        if step % 8 == 0:
            print(f"epoch={epoch} step={step} phase=train model.training={model.training} loss={loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        vl = nn.functional.cross_entropy(model(Xv), yv).item()
    print(f"epoch={epoch} phase=eval model.training={model.training} val_loss={vl:.4f}")
print(f"bn running_mean |mean| after training: {model[1].running_mean.abs().mean().item():.4f}, "
      f"num_batches_tracked={int(model[1].num_batches_tracked)}")
