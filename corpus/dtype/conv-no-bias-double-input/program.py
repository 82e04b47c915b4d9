import torch
import torch.nn as nn

torch.manual_seed(0)


class Stem(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 7, stride=2, padding=3, bias=False)
        self.bn = nn.BatchNorm2d(16)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


stem = Stem()
x = torch.randn(2, 3, 32, 32, dtype=torch.float64)
print(stem(x).shape)
