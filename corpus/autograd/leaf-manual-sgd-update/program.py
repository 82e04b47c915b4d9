# Manual SGD on a tiny linear regression, forgetting torch.no_grad() around the update.
import torch

torch.manual_seed(0)
X = torch.randn(64, 3)
true_w = torch.tensor([[1.5], [-2.0], [0.5]])
y = X @ true_w + 0.1 * torch.randn(64, 1)

w = torch.zeros(3, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.1
for epoch in range(5):
    pred = X @ w + b
    loss = ((pred - y) ** 2).mean()
    loss.backward()
    print(f"epoch {epoch}: loss={loss.item():.4f}")
    w -= lr * w.grad           # in-place update of a leaf that requires grad
    b -= lr * b.grad
    w.grad.zero_()
    b.grad.zero_()
