import torch

torch.manual_seed(0)
offset = torch.tensor([0, 0, 0], requires_grad=True)
x = torch.randn(4, 3)
loss = (x + offset).pow(2).mean()
loss.backward()
