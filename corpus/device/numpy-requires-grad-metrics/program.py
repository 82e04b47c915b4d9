# Validation metrics computed with numpy straight from the model's predictions.
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x, y = torch.randn(128, 8), torch.randn(128, 1)
for epoch in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    print(f"epoch {epoch} train_loss={loss.item():.4f}")
    preds = model(x)
    r2 = 1 - np.sum((preds.numpy() - y.numpy()) ** 2) / np.sum((y.numpy() - y.numpy().mean()) ** 2)
    print(f"epoch {epoch} r2={r2:.3f}")
