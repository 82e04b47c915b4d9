import torch
import torch.nn as nn

torch.manual_seed(0)


class PatchEmbed(nn.Module):
    def __init__(self, patch=4, channels=3, dim=48):
        super().__init__()
        self.patch = patch
        self.proj = nn.Linear(channels * patch * patch, dim)

    def forward(self, x):
        b, c, h, w = x.shape
        p = self.patch
        x = x.view(b, c, h // p, p, w // p, p).permute(0, 2, 4, 1, 3, 5)
        patches = x.view(b, (h // p) * (w // p), c * p * p)
        return self.proj(patches)


images = torch.randn(2, 3, 16, 16)
print(PatchEmbed()(images).shape)
