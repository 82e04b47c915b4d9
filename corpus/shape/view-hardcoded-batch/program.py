import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc = nn.Linear(16 * 5 * 5, 10)

    def forward(self, x):
        x = nn.functional.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = nn.functional.max_pool2d(torch.relu(self.conv2(x)), 2)
        x = x.view(32, 16 * 5 * 5)
        return self.fc(x)


data = TensorDataset(torch.randn(106, 1, 32, 32), torch.randint(0, 10, (106,)))
loader = DataLoader(data, batch_size=32)
model = LeNet()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
for step, (x, y) in enumerate(loader):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    print(f"[step {step}] loss={loss.item():.4f}")
