import torch

# A (4, 3) projection matrix multiplied by a 4-vector with torch.matmul: the vector needs 3 entries.
P = torch.randn(4, 3)
v = torch.randn(4)
print(P @ v)
