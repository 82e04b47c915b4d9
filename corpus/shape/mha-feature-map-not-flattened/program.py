import torch
import torch.nn as nn

# A (N, C, H, W) feature map handed to multi-head attention without flattening it into tokens.
attn = nn.MultiheadAttention(embed_dim=64, num_heads=4, batch_first=True)
fmap = torch.randn(2, 64, 8, 8)
out, _ = attn(fmap, fmap, fmap)
