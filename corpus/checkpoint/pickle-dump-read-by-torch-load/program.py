import os
import pickle
import tempfile
import torch
import torch.nn as nn

tmp = tempfile.mkdtemp()
# Weights saved with pickle.dump, read back with torch.load.
model = nn.Linear(4, 2)
with open(os.path.join(tmp, "weights.pkl"), "wb") as f:
    pickle.dump(model.state_dict(), f)
state = torch.load(os.path.join(tmp, "weights.pkl"))
