# Physics-style derivative du/dx with torch.autograd.grad on a vector output, no grad_outputs.
import torch

x = torch.linspace(0, 1, 50, requires_grad=True)
u = torch.sin(3 * x) * x
(du_dx,) = torch.autograd.grad(u, x, create_graph=True)
print(du_dx[:3])
