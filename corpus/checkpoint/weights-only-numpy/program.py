# A checkpoint that saved metrics as NumPy values next to the weights, loaded with
# weights_only=True: NumPy scalars and arrays are pickled through numpy globals that the
# restricted unpickler rejects.
import io

import numpy as np
import torch

torch.manual_seed(0)
buf = io.BytesIO()
torch.save({"weights": torch.nn.Linear(2, 2).state_dict(),
            "best_acc": np.float64(0.913)}, buf)
buf.seek(0)
ckpt = torch.load(buf, weights_only=True)
print(ckpt["best_acc"])
