# `optimizer.step` without parentheses: the expression evaluates the bound method and
# discards it, so no update happens; loss stays flat and the scheduler warns.
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(200, 4)
y = (x[:, 0] > 0).long()
clf = nn.Linear(4, 2)
optimizer = torch.optim.Adam(clf.parameters(), lr=0.01)
scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
for epoch in range(4):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(clf(x), y)
    loss.backward()
    optimizer.step
    scheduler.step()
    acc = (clf(x).argmax(1) == y).float().mean()
    print(f"epoch={epoch} loss={loss.item():.4f} acc={acc:.3f}", flush=True)
