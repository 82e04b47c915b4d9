import torch
import torch.nn as nn

# A style-transfer block: the conv was widened to 128 channels, the affine
# InstanceNorm after it still has 64.
block = nn.Sequential(
    nn.Conv2d(3, 128, kernel_size=3, padding=1),
    nn.InstanceNorm2d(64, affine=True),
    nn.ReLU(),
)
images = torch.randn(4, 3, 64, 64)
print(block(images).shape)
