# Python 3.11 underlines the failing sub-expression with carets (^^^^) under the source line.
import torch

features = torch.randn(4, 3, 8)
mask = torch.ones(4, 5, 8)
scores = (features * mask).sum(dim=-1).softmax(dim=-1)
