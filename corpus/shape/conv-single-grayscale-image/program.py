import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
    nn.Flatten(), nn.Linear(16, 10),
)
model.eval()
image = torch.rand(28, 28)
with torch.no_grad():
    prediction = model(image).argmax(dim=1)
print("predicted digit:", prediction.item())
