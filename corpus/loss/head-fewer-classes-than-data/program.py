import torch
import torch.nn as nn

torch.manual_seed(0)
NUM_CLASSES = 10


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(8, NUM_CLASSES)

    def forward(self, x):
        return self.head(self.backbone(x))


images = torch.randn(16, 3, 16, 16)
labels = torch.arange(16) % 12
model = Classifier()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
opt.zero_grad()
loss = nn.functional.cross_entropy(model(images), labels)
loss.backward()
opt.step()
