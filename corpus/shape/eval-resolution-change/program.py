import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 32, 3), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Linear(32 * 6 * 6, 10)

    def forward(self, x):
        x = self.features(x)
        return self.classifier(torch.flatten(x, 1))


model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
loss_fn = nn.CrossEntropyLoss()
train_x, train_y = torch.randn(64, 1, 28, 28), torch.randint(0, 10, (64,))
val_x, val_y = torch.randn(16, 1, 32, 32), torch.randint(0, 10, (16,))

for epoch in range(2):
    model.train()
    for i in range(0, 64, 16):
        opt.zero_grad()
        loss = loss_fn(model(train_x[i:i + 16]), train_y[i:i + 16])
        loss.backward()
        opt.step()
        print(f"epoch {epoch} iter {i // 16} train_loss {loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        val_loss = loss_fn(model(val_x), val_y)
    print(f"epoch {epoch} val_loss {val_loss.item():.4f}")
