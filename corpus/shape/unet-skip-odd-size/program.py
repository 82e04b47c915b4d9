import torch
import torch.nn as nn

torch.manual_seed(0)


class TinyUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc1 = nn.Conv2d(1, 8, 3, padding=1)
        self.enc2 = nn.Conv2d(8, 16, 3, padding=1)
        self.up = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.dec = nn.Conv2d(16, 8, 3, padding=1)
        self.head = nn.Conv2d(8, 2, 1)

    def forward(self, x):
        s1 = torch.relu(self.enc1(x))
        s2 = torch.relu(self.enc2(nn.functional.max_pool2d(s1, 2)))
        bottom = nn.functional.max_pool2d(s2, 2)
        u = self.up(bottom)
        d = torch.relu(self.dec(torch.cat([u, s2], dim=1)))
        return self.head(d)


model = TinyUNet()
image = torch.randn(1, 1, 30, 30)
print(model(image).shape)
