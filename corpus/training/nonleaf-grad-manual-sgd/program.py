# Hand-written SGD where the weights are created with requires_grad=True and then
# converted (.double()): the conversion returns a new, non-leaf tensor, so the tensor the
# loop holds never gets a .grad and the update fails.
import torch

torch.manual_seed(0)
X = torch.randn(100, 3, dtype=torch.float64)
y = X @ torch.tensor([[1.5], [-2.0], [0.5]], dtype=torch.float64)
w = torch.randn(3, 1, requires_grad=True).double()
b = torch.zeros(1, requires_grad=True).double()
lr = 0.1
for it in range(3):
    loss = ((X @ w + b - y) ** 2).mean()
    loss.backward()
    print(f"iter {it} loss {loss.item():.4f}", flush=True)
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
