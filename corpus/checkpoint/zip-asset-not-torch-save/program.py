import zipfile
import os
import tempfile
import torch

tmp = tempfile.mkdtemp()
# A downloaded "checkpoint" that is a zip of other files (here a README and a config), not torch.save output.
with zipfile.ZipFile(os.path.join(tmp, "model.pt"), "w") as z:
    z.writestr("README.md", "weights: see release page\n")
    z.writestr("config.json", "{\"hidden\": 128}\n")
state = torch.load(os.path.join(tmp, "model.pt"))
