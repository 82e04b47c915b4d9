# Healthy counterpart of the dead-ReLU cases: the same Trainer-style dead-unit logging on a ReLU MLP
# with default init and SGD at lr=0.05. Only a few percent of units are zero for the whole batch.
import torch
import torch.nn as nn

torch.manual_seed(4)
torch.set_num_threads(1)

X = torch.randn(2048, 40)
y = (X @ torch.randn(40, 8)).argmax(1)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(40, 256)
        self.fc2 = nn.Linear(256, 256)
        self.head = nn.Linear(256, 8)

    def forward(self, x, stats=None):
        h1 = torch.relu(self.fc1(x))
        h2 = torch.relu(self.fc2(h1))
        if stats is not None:
            stats["fc1"], stats["fc2"] = h1, h2
        return self.head(h2)


model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
step = 0
for epoch in range(1, 5):
    perm = torch.randperm(2048)
    for i in range(0, 2048, 128):
        idx = perm[i:i + 128]
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(X[idx]), y[idx])
        loss.backward()
        opt.step()
        step += 1
    stats = {}
    with torch.no_grad():
        model(X[:1024], stats)
    logs = {"loss": round(loss.item(), 4)}
    for k, a in stats.items():
        logs[f"dead_frac/{k}"] = round((a <= 0).all(dim=0).float().mean().item(), 4)
    logs["learning_rate"] = 0.05
    logs["epoch"] = float(epoch)
    print(logs)
