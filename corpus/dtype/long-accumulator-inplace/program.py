import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
total = torch.zeros(1, dtype=torch.long)
for step in range(3):
    loss = model(torch.randn(4, 3)).pow(2).mean()
    print(f"step {step} loss {loss.item():.4f}")
    total += loss.detach()
print(total)
