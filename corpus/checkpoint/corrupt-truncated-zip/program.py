# A checkpoint whose write was cut short (job killed or disk full while saving, or an
# interrupted copy): the zip archive loses its central directory, which sits at the end.
import os
import tempfile

import torch

torch.manual_seed(0)
path = os.path.join(tempfile.mkdtemp(), "last.ckpt")
torch.save({"model": torch.nn.Linear(256, 256).state_dict(), "step": 4000}, path)
size = os.path.getsize(path)
with open(path, "r+b") as f:
    f.truncate(size // 2)
print(f"resuming from last.ckpt ({size // 2} of {size} bytes on disk)", flush=True)
ckpt = torch.load(path)
