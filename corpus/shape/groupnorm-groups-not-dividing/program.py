import torch.nn as nn

# GroupNorm's default of 32 groups on a 48-channel layer.
norm = nn.GroupNorm(32, 48)
