import torch
import torch.nn as nn

torch.manual_seed(0)


class FrameEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(1)

    def forward(self, clips):
        return self.pool(torch.relu(self.conv(clips))).flatten(1)


clips = torch.randn(2, 8, 3, 32, 32)
encoder = FrameEncoder()
print(encoder(clips).shape)
