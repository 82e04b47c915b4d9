import torch


@torch.compile
def scale(x, factor):
    return x * factor + 1


x = torch.randn(8, device="cuda")
for dtype in [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int32,
              torch.int64, torch.int16, torch.int8, torch.uint8, torch.complex64]:
    print(dtype, scale(x.to(dtype), 2).dtype)
