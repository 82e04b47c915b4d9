# Hand-written optimizer: the second layer's weight is updated in place (under no_grad)
# after the first loss, then a second loss built from the same forward pass is
# backpropagated; MmBackward saved that weight to compute the gradient of its input.
import torch

torch.manual_seed(0)
w1 = torch.randn(4, 6, requires_grad=True)
w2 = torch.randn(6, 3, requires_grad=True)
x = torch.randn(10, 4)
h = torch.tanh(x @ w1) @ w2
loss_a = h.pow(2).mean()
loss_b = h.abs().mean()
loss_a.backward(retain_graph=True)
with torch.no_grad():
    w2 -= 0.1 * w2.grad         # bumps w2's version counter
loss_b.backward()
