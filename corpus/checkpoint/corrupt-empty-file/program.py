# A zero-byte checkpoint: the save was interrupted before anything was written, or a
# placeholder file was created by a failed copy.
import os
import tempfile

import torch

path = os.path.join(tempfile.mkdtemp(), "epoch_3.pt")
open(path, "wb").close()
print("Found checkpoint epoch_3.pt, resuming", flush=True)
state = torch.load(path)
