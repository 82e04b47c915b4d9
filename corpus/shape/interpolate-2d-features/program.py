import torch
import torch.nn.functional as F

# A (batch, features) tensor upsampled as if it were a signal or an image.
emb = torch.randn(8, 128)
up = F.interpolate(emb, scale_factor=2, mode="nearest")
print(up.shape)
