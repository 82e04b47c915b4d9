import torch
import torch.nn.functional as F

# One image (C, H, W) upscaled without its batch dimension.
img = torch.rand(3, 120, 160)
big = F.interpolate(img, scale_factor=2, mode="bilinear", align_corners=False)
print(big.shape)
