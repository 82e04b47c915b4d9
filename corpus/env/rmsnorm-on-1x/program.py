import torch
import torch.nn as nn

# A small decoder block uses nn.RMSNorm, as newer model code does.
class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.RMSNorm(dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        return x + self.proj(self.norm(x))

print(Block(32)(torch.randn(2, 5, 32)).shape)
