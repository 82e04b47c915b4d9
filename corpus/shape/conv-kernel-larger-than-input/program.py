import torch
import torch.nn as nn

# A small CNN written for 32x32 images, fed 8x8 thumbnails: by the third block the feature map is
# smaller than the 3x3 kernel (no padding).
model = nn.Sequential(
    nn.Conv2d(3, 16, 3), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3), nn.ReLU(),
    nn.Conv2d(32, 64, 3), nn.ReLU(),
)
x = torch.randn(4, 3, 8, 8)
out = model(x)
print(out.shape)
