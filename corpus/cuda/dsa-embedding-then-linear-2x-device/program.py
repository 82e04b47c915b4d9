import torch
import torch.nn as nn

emb = nn.Embedding(500, 256).cuda()
proj = nn.Linear(256, 256).cuda()
ids = torch.full((4, 16), 600, device="cuda")
h = proj(emb(ids))
out = h @ h.transpose(1, 2)
print(out.sum().item())
