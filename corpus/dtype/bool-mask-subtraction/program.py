import torch

torch.manual_seed(0)
lengths = torch.tensor([3, 5])
mask = torch.arange(5)[None, :] < lengths[:, None]
ones = torch.ones_like(mask)
padding = ones - mask
print(padding)
