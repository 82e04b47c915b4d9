# A missing optional dependency: not a PyTorch failure.
import torch

print(f"torch {torch.__version__}", flush=True)
from einops import rearrange  # noqa: E402

x = rearrange(torch.randn(2, 3, 4), "b c l -> b l c")
