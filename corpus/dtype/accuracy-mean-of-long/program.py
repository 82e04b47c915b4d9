import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(10, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(50, 10), torch.randint(0, 3, (50,))
for epoch in range(3):
    opt.zero_grad()
    logits = model(x)
    loss = nn.functional.cross_entropy(logits, y)
    loss.backward()
    opt.step()
    acc = (logits.argmax(dim=1) == y).long().mean()
    print(f"epoch {epoch} loss {loss.item():.4f} acc {acc.item():.3f}")
