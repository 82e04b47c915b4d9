import torch
import torch.nn as nn

encoder = nn.Linear(64, 64).cuda()
memory_bank = torch.randn(100, 64, device="cuda")
x = torch.randn(8, 64, device="cuda")
with torch.autocast("cuda", dtype=torch.float16):
    z = encoder(x)
scores = torch.mm(z, memory_bank.t())  # outside autocast: half times float
print(scores.shape)
