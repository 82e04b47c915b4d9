import torch
import torch.nn.functional as F

# One image (C, H, W) resized without its batch dimension.
img = torch.rand(3, 120, 160)
small = F.interpolate(img, size=(64, 64), mode="bilinear", align_corners=False)
print(small.shape)
