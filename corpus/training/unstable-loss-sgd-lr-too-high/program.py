# Learning rate 100x too high for SGD on a linear classifier (lr=LR): every step overshoots, the
# logits swing from confidently right to confidently wrong, and the loss bounces between small and
# very large values with no downward trend.
import sys
import torch
import torch.nn as nn

LR = float(sys.argv[1]) if len(sys.argv) > 1 else 20.0
torch.manual_seed(8)
x = torch.randn(5000, 30)
labels = (x @ torch.randn(30) > 0).long()
model = nn.Linear(30, 2)
opt = torch.optim.SGD(model.parameters(), lr=LR)
for step in range(1, 301):
    idx = torch.randint(0, 5000, (50,))
    loss = nn.functional.cross_entropy(model(x[idx]), labels[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0:
        print(f"train step {step}: loss={loss.item():.4f}", flush=True)
