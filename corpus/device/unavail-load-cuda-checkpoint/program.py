# Loading a checkpoint that was saved from GPU tensors on a machine without CUDA.
# To get such a file on this CPU-only machine, a serialization tagger records every storage's
# location as 'cuda:0', exactly what torch.save writes for tensors that live on the first GPU.
import os
import tempfile
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.serialization.register_package(5, lambda storage: "cuda:0", lambda obj, loc: None)

model = nn.Linear(32, 4)
path = os.path.join(tempfile.mkdtemp(), "best.pt")
torch.save({"epoch": 12, "model": model.state_dict()}, path)
torch.serialization._package_registry.pop(0)   # back to the stock taggers/deserialisers

print(f"resuming from {os.path.basename(path)}")
ckpt = torch.load(path)
model.load_state_dict(ckpt["model"])
