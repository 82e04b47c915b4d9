# The training script saved a resume checkpoint {'epoch', 'model', 'optimizer'}; the
# evaluation script passes that whole dict to load_state_dict instead of ckpt['model'].
import io

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 3))
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)

buf = io.BytesIO()
torch.save({"epoch": 12, "model": model.state_dict(), "optimizer": opt.state_dict()}, buf)
buf.seek(0)

print("==> evaluating checkpoint epoch_12.pt", flush=True)
fresh = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 3))
ckpt = torch.load(buf)
fresh.load_state_dict(ckpt)
