import os
import torch

torch.save({"w": torch.randn(512, 512)}, "last.pt")
with open("last.pt", "r+b") as f:  # the job was killed while saving
    f.truncate(os.path.getsize("last.pt") // 2)
state = torch.load("last.pt", map_location="cuda")
print(state.keys())
