import torch

# An image batch converted from NHWC to NCHW, called on a single (H, W, C) image.
def to_nchw(x):
    return x.permute(0, 3, 1, 2)

img = torch.rand(64, 64, 3)
print(to_nchw(img).shape)
