import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Flatten(),
    nn.BatchNorm2d(8 * 14 * 14), nn.Linear(8 * 14 * 14, 2),
)
x = torch.randn(4, 3, 16, 16)
y = torch.randint(0, 2, (4,))
print("batch", tuple(x.shape))
loss = nn.functional.cross_entropy(model(x), y)
loss.backward()
