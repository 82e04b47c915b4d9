import torch

counts = torch.randint(0, 5, (16, 32), device="cuda", dtype=torch.int32)
weights = torch.randint(0, 5, (32, 8), device="cuda", dtype=torch.int32)
print((counts @ weights).float().mean())
