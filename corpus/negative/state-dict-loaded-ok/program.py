# Saving and restoring a checkpoint successfully, printing what load_state_dict returns
# (both strict and non-strict loads report no missing or unexpected keys).
import io

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.Flatten(), nn.Linear(4 * 6 * 6, 10))
buf = io.BytesIO()
torch.save({"model": model.state_dict(), "epoch": 7}, buf)
buf.seek(0)
ckpt = torch.load(buf)
restored = nn.Sequential(nn.Conv2d(1, 4, 3), nn.Flatten(), nn.Linear(4 * 6 * 6, 10))
print(restored.load_state_dict(ckpt["model"]))
print(restored.load_state_dict(ckpt["model"], strict=False))
print(f"Resumed from epoch {ckpt['epoch']}; missing keys: none, unexpected keys: none")
