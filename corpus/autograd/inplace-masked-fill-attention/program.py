# Attention scores are masked with masked_fill_ after softmax was applied to them;
# SoftmaxBackward0 needs its (now overwritten) output.
import math
import torch

torch.manual_seed(0)
B, T, D = 2, 5, 8
q = torch.randn(B, T, D, requires_grad=True)
k = torch.randn(B, T, D, requires_grad=True)
v = torch.randn(B, T, D, requires_grad=True)
mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)

scores = q @ k.transpose(1, 2) / math.sqrt(D)
attn = scores.softmax(dim=-1)
attn.masked_fill_(mask, 0.0)
out = attn @ v
out.sum().backward()
