# Gradient penalty: torch.autograd.grad() without retain_graph/create_graph, then backward().
import torch
import torch.nn as nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(4, 16), nn.Softplus(), nn.Linear(16, 1))
x = torch.randn(16, 4, requires_grad=True)
score = critic(x).sum()
(gx,) = torch.autograd.grad(score, x)
penalty = ((gx.norm(dim=1) - 1) ** 2).mean()
(score + penalty).backward()
