import os
import tempfile
import torch

# A loader written for 2.1+ memory-maps large checkpoints with torch.load(..., mmap=True).
path = os.path.join(tempfile.mkdtemp(), "weights.pt")
torch.save({"w": torch.zeros(4, 4)}, path)
state = torch.load(path, map_location="cpu", mmap=True)
print(list(state))
