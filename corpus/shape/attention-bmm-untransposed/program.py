import math
import torch
import torch.nn as nn

torch.manual_seed(0)


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.scale = 1.0 / math.sqrt(dim)

    def forward(self, x):
        q, k, v = self.q(x), self.k(x), self.v(x)
        scores = torch.bmm(q, k) * self.scale
        return torch.bmm(scores.softmax(dim=-1), v)


layer = SelfAttention(16)
tokens = torch.randn(2, 5, 16)
out = layer(tokens)
print(out.shape)
