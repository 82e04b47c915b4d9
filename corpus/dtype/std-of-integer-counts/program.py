import torch

torch.manual_seed(0)
counts = torch.randint(0, 20, (8, 5))
mean = counts.float().mean(dim=0)
std = counts.std(dim=0)
normalised = (counts - mean) / std
print(normalised)
