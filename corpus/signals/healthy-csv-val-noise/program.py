# Healthy run: enough data, weight decay, validation every epoch. Validation loss is noisy
# (small validation set) but follows the training loss down. Metrics in the layout of Lightning's
# CSVLogger metrics.csv: step rows carry train_loss, epoch-end rows carry val_loss and val_acc.
import csv
import sys
import torch
import torch.nn as nn

torch.manual_seed(0)
w = torch.randn(20, 1)
def make(n):
    x = torch.randn(n, 20)
    return x, ((x @ w).squeeze(1) + 0.5 * torch.randn(n) > 0).float()
xt, yt = make(4096)
xv, yv = make(128)
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 1))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
bce = nn.BCEWithLogitsLoss()
out = csv.writer(sys.stdout, lineterminator="\n")
out.writerow(["epoch", "step", "train_loss", "val_loss", "val_acc"])
step = 0
for epoch in range(25):
    perm = torch.randperm(4096)
    for i in range(0, 4096, 256):
        idx = perm[i:i + 256]
        loss = bce(model(xt[idx]).squeeze(1), yt[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 8 == 0:
            out.writerow([epoch, step, f"{loss.item():.4f}", "", ""])
    with torch.no_grad():
        logits = model(xv).squeeze(1)
        acc = ((logits > 0).float() == yv).float().mean().item()
        out.writerow([epoch, step, "", f"{bce(logits, yv).item():.4f}", f"{acc:.4f}"])
