import torch
import torch.nn as nn

# A 1-D pooling layer (copied from an audio model) applied to a batch of images.
pool = nn.MaxPool1d(kernel_size=2)
images = torch.randn(8, 3, 32, 32)
print(pool(images).shape)
