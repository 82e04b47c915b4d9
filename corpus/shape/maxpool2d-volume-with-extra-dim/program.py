import torch
import torch.nn as nn

# A 2-D CNN fed single-channel slices: the loader already yields (N, 1, H, W)
# and the model adds a channel dimension again, so MaxPool2d gets 5 dimensions.
class SliceNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        x = x.unsqueeze(1)
        return self.pool(x)

batch = torch.randn(16, 1, 28, 28)
print(SliceNet()(batch).shape)
