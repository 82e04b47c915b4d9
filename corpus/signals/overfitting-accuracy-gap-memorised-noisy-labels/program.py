# A wide MLP trained on 200 samples whose labels are 40% noise: it learns the training set by heart
# (training accuracy to 100%) while the validation accuracy stalls around what the clean labels allow.
# The loop prints the training loss and both accuracies, as many tutorial loops do (no validation loss).
import torch
from torch import nn

torch.manual_seed(0)
n, d = 200, 20
w_true = torch.randn(d)
x = torch.randn(n + 200, d)
y = (x @ w_true > 0).long()
flip = torch.rand(n + 200) < 0.4
y = torch.where(flip, 1 - y, y)
xtr, ytr, xva, yva = x[:n], y[:n], x[n:], y[n:]

model = nn.Sequential(nn.Linear(d, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()
for epoch in range(1, 41):
    model.train()
    perm = torch.randperm(n)
    for i in range(0, n, 20):
        idx = perm[i:i + 20]
        opt.zero_grad()
        loss = loss_fn(model(xtr[idx]), ytr[idx])
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        out = model(xtr)
        train_loss = loss_fn(out, ytr).item()
        train_acc = (out.argmax(1) == ytr).float().mean().item() * 100
        val_acc = (model(xva).argmax(1) == yva).float().mean().item() * 100
    print(f"Epoch [{epoch}/40] Train Loss: {train_loss:.4f} Train Acc: {train_acc:.2f}% Val Acc: {val_acc:.2f}%")
