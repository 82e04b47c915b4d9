import torch
from torch import nn

# a small VGG-like feature stack: 3 conv blocks of 3 layers each (9 modules)
features = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
)

# a perceptual-loss recipe written for VGG16 hooks layer 22 (relu4_3)
captured = {}
features[22].register_forward_hook(lambda m, i, o: captured.setdefault("relu4_3", o))
features(torch.randn(1, 3, 32, 32))
print(captured["relu4_3"].shape)
