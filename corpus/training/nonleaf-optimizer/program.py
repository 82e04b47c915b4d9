# Weights created with requires_grad=True and then moved/cast in one expression are not
# leaves; the optimizer refuses them because their values could never be updated in place.
import torch

torch.manual_seed(0)
device = "cpu"
W1 = torch.randn(784, 128, requires_grad=True).to(device, torch.float64)
W2 = torch.randn(128, 10, requires_grad=True).to(device, torch.float64)
print("building optimizer for 2 weight matrices", flush=True)
opt = torch.optim.SGD([W1, W2], lr=0.01)
