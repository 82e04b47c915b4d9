# A checkpoint written by a newer PyTorch (its serialization format version is higher than
# this installation can read) loaded with an older torch. The newer writer is simulated by
# rewriting the format-version record of a file saved here to 99; everything else is intact.
import io
import os
import tempfile
import zipfile

import torch

torch.manual_seed(0)
buf = io.BytesIO()
torch.save(torch.nn.Linear(8, 2).state_dict(), buf)
src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
path = os.path.join(tempfile.mkdtemp(), "model_from_cluster.pt")
with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as dst:
    for info in src.infolist():
        data = src.read(info.filename)
        if info.filename.endswith("/version"):
            data = b"99\n"
        dst.writestr(info, data)
print(f"torch {torch.__version__}: loading model_from_cluster.pt", flush=True)
state = torch.load(path)
