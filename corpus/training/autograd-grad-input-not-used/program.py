# Physics-informed loss for the heat equation u_t = k * u_xx: the network is meant to take
# (x, t), but the input tensor is built from x twice, so t never enters the graph and
# du/dt cannot be taken.
import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 1))

x = torch.rand(64, 1, requires_grad=True)
t = torch.rand(64, 1, requires_grad=True)
u = net(torch.cat([x, x], dim=1))
u_x = torch.autograd.grad(u.sum(), x, create_graph=True)[0]
u_xx = torch.autograd.grad(u_x.sum(), x, create_graph=True)[0]
u_t = torch.autograd.grad(u.sum(), t, create_graph=True)[0]
residual = u_t - 0.1 * u_xx
print(residual.pow(2).mean().item())
