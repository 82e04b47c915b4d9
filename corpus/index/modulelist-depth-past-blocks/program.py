import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, width, num_blocks, depth):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Linear(width, width) for _ in range(num_blocks))
        self.depth = depth

    def forward(self, x):
        for i in range(self.depth):
            x = torch.relu(self.blocks[i](x))
        return x


if __name__ == "__main__":
    # the config says 6 layers, the checkpoint-compatible module list was built with 4
    model = Encoder(width=16, num_blocks=4, depth=6)
    print(model(torch.randn(2, 16)).shape)
