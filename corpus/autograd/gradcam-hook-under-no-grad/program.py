import torch
import torch.nn as nn

# Grad-CAM style hook registered on a feature map computed under torch.no_grad().
conv = nn.Conv2d(3, 8, 3)
image = torch.rand(1, 3, 32, 32)
with torch.no_grad():
    features = conv(image)
grads = []
features.register_hook(grads.append)
