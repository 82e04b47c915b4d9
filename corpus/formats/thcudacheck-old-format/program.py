# Needs a CUDA device and PyTorch 0.4-1.0 (not run here: log.txt is `formatted`, see label.yaml). The
# same bug as ../cuda-async-assert-flood: a label equal to the number of classes.
import torch
import torch.nn as nn

device = torch.device("cuda")
model = nn.Linear(128, 10).to(device)
loss_fn = nn.CrossEntropyLoss()
for step in range(100):
    x = torch.randn(64, 128, device=device)
    y = torch.randint(0, 11, (64,), device=device)
    loss = loss_fn(model(x), y)
    loss.backward()
    print(step, loss.item())
