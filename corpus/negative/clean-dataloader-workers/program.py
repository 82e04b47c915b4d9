# A healthy run with DataLoader worker processes, validation each epoch, and an error-rate
# metric in the log ("error" here is a metric name, not a failure).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
x = torch.randn(600, 10)
y = (x[:, 0] + 0.5 * x[:, 1] > 0).long()
train = DataLoader(TensorDataset(x[:500], y[:500]), batch_size=50, shuffle=True, num_workers=2)
val = DataLoader(TensorDataset(x[500:], y[500:]), batch_size=100, num_workers=2)
model = nn.Linear(10, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
for epoch in range(4):
    model.train()
    for xb, yb in train:
        loss = nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    wrong = 0
    with torch.no_grad():
        for xb, yb in val:
            wrong += (model(xb).argmax(1) != yb).sum().item()
    print(f"Epoch {epoch}: train_loss={loss.item():.4f} val error rate: {wrong / 100:.2f}", flush=True)
print("done: 0 errors, 0 warnings")
