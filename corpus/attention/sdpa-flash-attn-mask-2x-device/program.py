import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

q = torch.randn(2, 8, 256, 64, device="cuda", dtype=torch.bfloat16)
padding_mask = torch.ones(2, 1, 1, 256, device="cuda", dtype=torch.bool)
padding_mask[1, :, :, 200:] = False
with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    out = F.scaled_dot_product_attention(q, q, q, attn_mask=padding_mask)
print(out.shape)
