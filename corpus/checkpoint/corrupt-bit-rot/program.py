# A checkpoint damaged in the middle (a bad disk sector or a flaky network copy overwrote
# part of one tensor's record), while its end - the zip directory - is intact.
import io
import os
import tempfile
import zipfile

import torch

torch.manual_seed(0)
path = os.path.join(tempfile.mkdtemp(), "encoder.pt")
torch.save({"embed": torch.randn(1000, 64), "proj": torch.randn(64, 64)}, path)
with zipfile.ZipFile(path) as z:
    info = z.getinfo([n for n in z.namelist() if n.endswith("data/0")][0])
with open(path, "r+b") as f:
    f.seek(info.header_offset)
    f.write(b"\x00" * 64)  # clobber the local header of the first tensor record
print("loading encoder.pt", flush=True)
state = torch.load(path)
