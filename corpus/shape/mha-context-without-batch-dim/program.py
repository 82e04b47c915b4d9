import torch
import torch.nn as nn

# Cross-attention from a batch of queries to one shared context that was left without its batch dimension.
attn = nn.MultiheadAttention(embed_dim=32, num_heads=4, batch_first=True)
queries = torch.randn(8, 5, 32)
context = torch.randn(20, 32)
out, _ = attn(queries, context, context)
