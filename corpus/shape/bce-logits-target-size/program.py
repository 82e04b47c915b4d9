import torch
import torch.nn as nn

torch.manual_seed(0)


class SpamClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(30, 16), nn.ReLU())
        self.head = nn.Linear(16, 1)

    def forward(self, x):
        return self.head(self.body(x))


model = SpamClassifier()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.BCEWithLogitsLoss()
x, y = torch.randn(8, 30), torch.randint(0, 2, (8,)).float()
opt.zero_grad()
loss = loss_fn(model(x), y)
loss.backward()
opt.step()
