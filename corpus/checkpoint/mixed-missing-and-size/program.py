# A checkpoint from an older model version: the new version added a LayerNorm and widened
# the output layer. load_state_dict reports both the missing keys and the size mismatch.
import io

import torch
import torch.nn as nn

torch.manual_seed(0)
old = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
new = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 6), nn.LayerNorm(6))
buf = io.BytesIO()
torch.save(old.state_dict(), buf)
buf.seek(0)
print("loading weights from v1 checkpoint into v2 model", flush=True)
new.load_state_dict(torch.load(buf))
