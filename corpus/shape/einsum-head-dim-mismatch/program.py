# Multi-head attention written with einsum: the queries are split into 8 heads of 64, but the
# keys are split as if the projection served 16 heads of 32, so the head subscript h (and d)
# has different sizes in the two operands.
import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, dim=512, heads=8, kv_heads=16):
        super().__init__()
        self.heads, self.kv_heads = heads, kv_heads
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        q = self.q(x).view(b, n, self.heads, c // self.heads).transpose(1, 2)
        k = self.k(x).view(b, n, self.kv_heads, c // self.kv_heads).transpose(1, 2)
        return torch.einsum("bhqd,bhkd->bhqk", q, k).softmax(-1)


x = torch.randn(2, 10, 512)
print(Attention()(x).shape)
