import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
images = torch.rand(64, 1, 28, 28)
labels = torch.randint(0, 10, (64,))
loader = DataLoader(TensorDataset(images, labels), batch_size=16)

backbone = nn.Sequential(
    nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
    nn.Flatten(), nn.Linear(64, 10),
)
optimizer = torch.optim.Adam(backbone.parameters())
print(f"train set: {len(images)} images")
for epoch in range(1):
    for x, y in loader:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(backbone(x), y)
        loss.backward()
        optimizer.step()
