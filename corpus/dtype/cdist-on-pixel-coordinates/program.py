import torch

# Distances between detected keypoints and reference points, both as integer pixel coordinates.
detected = torch.tensor([[10, 12], [40, 41], [70, 5]])
reference = torch.tensor([[11, 12], [69, 6]])
d = torch.cdist(detected, reference)
print(d.argmin(dim=1))
