# A batched bilinear score written with einsum ("bi,bij->bj"), called at inference time on a
# single example that was never given its batch dimension: the first operand has 1 dimension
# where the equation names 2.
import torch

W = torch.randn(4, 32, 16)


def score(x, W):
    return torch.einsum("bi,bij->bj", x, W)


print(score(torch.randn(4, 32), W).shape)
sample = torch.randn(32)
print(score(sample, W[:1]).shape)
