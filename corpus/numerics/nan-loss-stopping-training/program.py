# A regression model trained with a learning rate just past the stable limit for these
# unnormalised inputs (std 5, targets around 30):
# the updates grow until the loss overflows. The loop uses the common guard from detection
# training scripts (print "Loss is ..., stopping training" and exit when not finite).
import math
import sys

import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(256, 8) * 5.0
y = x @ torch.randn(8, 1) * 10.0 + 30.0
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=1.4e-3)

for epoch in range(50):
    for i in range(0, 256, 32):
        loss = nn.functional.mse_loss(model(x[i:i + 32]), y[i:i + 32])
        loss_value = loss.item()
        if not math.isfinite(loss_value):
            print("Loss is {}, stopping training".format(loss_value))
            sys.exit(1)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"Epoch: [{epoch}]  loss: {loss_value:.4f}  lr: 0.001400", flush=True)
