import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

q = torch.randn(2, 8, 128, 64, device="cuda")
k = torch.randn(2, 8, 128, 64, device="cuda")
v = torch.randn(2, 8, 128, 64, device="cuda")
with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print(out.shape)
