# Bug: forward() returns F.softmax(logits) and the loop feeds it to F.cross_entropy, which
# applies log_softmax once more. On an easy 5-class task the loss cannot go below
# ln(1 + 4/e) = 0.9048 and flattens there. key=value lines every 10 steps.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(3)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(24, 96), nn.ReLU(), nn.Linear(96, 5))

    def forward(self, x):
        return F.softmax(self.body(x), dim=-1)


x = torch.randn(8192, 24)
labels = x[:, :5].argmax(dim=1)
model = Classifier()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(1, 601):
    idx = torch.randint(0, 8192, (256,))
    loss = F.cross_entropy(model(x[idx]), labels[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step={step} loss={loss.item():.4f} lr=0.003", flush=True)
