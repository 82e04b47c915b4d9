import zipfile
import os
import tempfile
import torch

tmp = tempfile.mkdtemp()
# A release asset that is a zip archive of an exported folder (weights in another format), not torch.save output.
with zipfile.ZipFile(os.path.join(tmp, "model.pt"), "w") as z:
    z.writestr("export/README.md", "converted weights\n")
    z.writestr("export/weights.npz", b"\x00" * 64)
state = torch.load(os.path.join(tmp, "model.pt"))
