# A hand-written projection stores its weight as (out_features, in_features), the layout
# nn.Linear uses, but applies it as x @ W, which needs (in_features, out_features).
import torch

torch.manual_seed(0)


class Projection(torch.nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(d_out, d_in) / d_in ** 0.5)
        self.bias = torch.nn.Parameter(torch.zeros(d_out))

    def forward(self, x):
        return x @ self.weight + self.bias


proj = Projection(256, 64)
tokens = torch.randn(4, 10, 256)
print(proj(tokens).shape)
