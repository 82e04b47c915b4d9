import torch

torch.manual_seed(0)
counts = torch.zeros(5)
bins = torch.tensor([0, 2, 2, 4])
weights = torch.tensor([0.5, 1.0, 1.5, 2.0], dtype=torch.float64)
counts.index_put_((bins,), weights, accumulate=True)
print(counts)
