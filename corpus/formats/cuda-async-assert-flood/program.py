# Needs a CUDA device (not run here: log.txt is `formatted`, see label.yaml). Labels drawn from 0..10 for a
# 10-class head: the nll_loss kernel asserts on every thread that meets label 10, but the error only
# surfaces at the next synchronisation, loss.item(), one line later than the real cause.
import torch
import torch.nn as nn

device = torch.device("cuda")
model = nn.Linear(128, 10).to(device)
loss_fn = nn.CrossEntropyLoss()
running = 0.0
for step in range(100):
    x = torch.randn(256, 128, device=device)
    y = torch.randint(0, 11, (256,), device=device)
    loss = loss_fn(model(x), y)
    loss.backward()
    running += loss.item()
