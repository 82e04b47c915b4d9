# MAML-style inner loop: the adapted weights are computed with torch.autograd.grad over
# every parameter of a two-head model, but the support loss only uses the classification
# head, so the regression head's parameters are not in the graph.
import torch
from torch import nn

torch.manual_seed(0)


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 32), nn.ReLU())
        self.cls_head = nn.Linear(32, 5)
        self.reg_head = nn.Linear(32, 1)

    def forward(self, x):
        h = self.body(x)
        return self.cls_head(h), self.reg_head(h)


model = TwoHeads()
x, y = torch.randn(10, 8), torch.randint(0, 5, (10,))
logits, _ = model(x)
support_loss = nn.functional.cross_entropy(logits, y)
grads = torch.autograd.grad(support_loss, list(model.parameters()), create_graph=True)
fast_weights = [p - 0.01 * g for p, g in zip(model.parameters(), grads)]
print(len(fast_weights))
