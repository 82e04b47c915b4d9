# The repository was cloned without git-lfs: the .pt file in the working tree is the
# small text pointer that git-lfs stores, not the weights.
import os
import tempfile

import torch

path = os.path.join(tempfile.mkdtemp(), "model.pt")
with open(path, "w") as f:
    f.write("version https://git-lfs.github.com/spec/v1\n"
            "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
            "size 46830571\n")
model = torch.nn.Linear(512, 10)
model.load_state_dict(torch.load(path))
