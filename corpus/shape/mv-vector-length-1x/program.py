import torch

# A (2, 3) weight matrix applied to a 2-vector: the vector must have 3 entries.
W = torch.randn(2, 3)
v = torch.randn(2)
print(torch.mv(W, v))
