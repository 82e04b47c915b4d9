import torch
import triton
import triton.language as tl


@triton.jit
def gather_rows(src, dst, idx, n_cols: tl.constexpr):
    row = tl.program_id(0)
    src_row = tl.load(idx + row)
    cols = tl.arange(0, n_cols)
    tl.store(dst + row * n_cols + cols, tl.load(src + src_row * n_cols + cols))


table = torch.randn(1024, 128, device="cuda")
index = torch.tensor([3, 7, 1 << 40], device="cuda")  # last index far past the table
out = torch.empty(3, 128, device="cuda")
gather_rows[(3,)](table, out, index, n_cols=128)
print(out.sum().item())
