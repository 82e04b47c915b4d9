# Bug: optimizer.zero_grad() is never called, so .grad accumulates the gradients of every step so
# far; the gradient norm grows roughly linearly with the step count and the loss gets worse.
# Metrics written in the layout of Lightning's CSVLogger metrics.csv (to stdout here).
import csv
import sys
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(4096, 32)
labels = (x[:, :4]).argmax(dim=1)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.2)
out = csv.writer(sys.stdout, lineterminator="\n")
out.writerow(["epoch", "step", "train_loss", "grad_norm"])
step = 0
for epoch in range(5):
    for i in range(40):
        idx = torch.randint(0, 4096, (128,))
        loss = nn.functional.cross_entropy(model(x[idx]), labels[idx])
        loss.backward()  # no optimizer.zero_grad() anywhere
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
        opt.step()
        step += 1
        if step % 4 == 0:
            out.writerow([epoch, step, f"{loss.item():.5f}", f"{grad_norm.item():.5f}"])
