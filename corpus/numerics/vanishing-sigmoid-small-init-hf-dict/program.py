# A sigmoid MLP whose weights were initialised with std=0.01 "to keep activations small": every layer
# scales the backward signal by about 0.25*0.01*sqrt(width), so the early layers get almost no gradient.
# Logged in Hugging Face Trainer style, one dict per logging step.
import torch
import torch.nn as nn

torch.manual_seed(1)
torch.set_num_threads(1)

X = torch.randn(2048, 32)
y = (X[:, :4].sum(1) > 0).long() + 2 * (X[:, 4:8].sum(1) > 0).long()


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(32, 128)
        self.fc2 = nn.Linear(128, 128)
        self.fc3 = nn.Linear(128, 128)
        self.fc4 = nn.Linear(128, 128)
        self.out = nn.Linear(128, 4)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, std=0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        x = torch.sigmoid(self.fc1(x))
        x = torch.sigmoid(self.fc2(x))
        x = torch.sigmoid(self.fc3(x))
        x = torch.sigmoid(self.fc4(x))
        return self.out(x)


model = MLP()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
step = 0
for epoch in range(3):
    perm = torch.randperm(2048)
    for i in range(0, 2048, 64):
        idx = perm[i:i + 64]
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(X[idx]), y[idx])
        loss.backward()
        step += 1
        if step % 24 == 0:
            logs = {"loss": round(loss.item(), 4)}
            for name in ("fc1", "fc2", "fc3", "fc4", "out"):
                g = getattr(model, name).weight.grad
                logs[f"grad_mean_abs/{name}"] = float(f"{g.abs().mean().item():.3e}")
            logs["learning_rate"] = 0.05
            logs["epoch"] = round(step / 32, 2)
            print(logs)
        opt.step()
