import torch

# Keypoints (row, col) on a 48x64 heat map are turned into flat indices to read the map's scores,
# but the width used is the 64x80 input image's, not the heat map's.
heat = torch.rand(48, 64)
rows = torch.tensor([3, 20, 47])
cols = torch.tensor([10, 40, 63])
image_width = 80
flat = rows * image_width + cols
scores = torch.take(heat, flat)
print(scores)
