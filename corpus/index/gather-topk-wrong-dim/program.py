import torch

torch.manual_seed(0)
scores = torch.randn(8, 4)
top = scores.topk(2, dim=0).indices.t()
picked = torch.gather(scores, 1, top)
print(picked)
