import torch

w = torch.randn(16, 16, device="cuda", requires_grad=True)
x = torch.randn(4, 16, device="cuda")
h = torch.sigmoid(x @ w)
h.mul_(2)
h.sum().backward()
