import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(12, 4)

    def forward(self, x):
        return F.log_softmax(self.fc(x), dim=1)


def make_batch(one_hot):
    x = torch.randn(10, 12)
    y = torch.randint(0, 4, (10,))
    return x, (F.one_hot(y, 4) if one_hot else y)


model = Classifier()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    x, y = make_batch(one_hot=epoch >= 2)
    opt.zero_grad()
    loss = F.nll_loss(model(x), y)
    loss.backward()
    opt.step()
    print(f"epoch {epoch} nll {loss.item():.4f}")
