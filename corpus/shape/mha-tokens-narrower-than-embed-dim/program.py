import torch
import torch.nn as nn

# Multi-head attention built for 512-dim tokens, given 256-dim features from a smaller encoder.
attn = nn.MultiheadAttention(embed_dim=512, num_heads=8, batch_first=True)
tokens = torch.randn(2, 10, 256)
out, _ = attn(tokens, tokens, tokens)
