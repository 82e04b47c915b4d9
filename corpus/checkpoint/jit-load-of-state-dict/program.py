import os
import tempfile
import torch
import torch.nn as nn

tmp = tempfile.mkdtemp()
# A state_dict saved with torch.save, loaded with torch.jit.load as if it were a TorchScript module.
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
torch.save(model.state_dict(), os.path.join(tmp, "model.pt"))
scripted = torch.jit.load(os.path.join(tmp, "model.pt"))
