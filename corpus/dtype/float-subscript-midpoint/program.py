import torch

# The centre frame of a clip is taken with a true division, which gives a Python float.
clip = torch.randn(16, 3, 32, 32)
mid = clip[clip.shape[0] / 2]
print(mid.shape)
