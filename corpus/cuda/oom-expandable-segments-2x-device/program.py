import os
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(8192, 8192), nn.GELU(), nn.Linear(8192, 8192)).cuda()
tokens = torch.randn(64, 4096, 8192, device="cuda")
acts = []
for i in range(64):
    acts.append(model(tokens[i:i + 1].expand(16, -1, -1)))
    print(f"chunk {i}: {torch.cuda.memory_allocated() / 2**30:.1f} GiB allocated")
