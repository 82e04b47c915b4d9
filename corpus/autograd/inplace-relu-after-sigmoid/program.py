# A gating block applies nn.ReLU(inplace=True) to the output of a sigmoid.
# SigmoidBackward needs its own output, which ReLU then overwrites in place.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 32)
        self.act = nn.ReLU(inplace=True)
        self.out = nn.Linear(32, 2)

    def forward(self, x):
        g = torch.sigmoid(self.fc(x))
        g = self.act(g)          # overwrites the sigmoid output saved for backward
        return self.out(g)


model = Gate()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 16)
y = torch.randint(0, 2, (8,))
for step in range(3):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    print(f"step {step} forward ok, loss={loss.item():.4f}")
    loss.backward()
    opt.step()
