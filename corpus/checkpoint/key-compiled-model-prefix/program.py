# Weights saved from a torch.compile()d model carry an '_orig_mod.' prefix on every key
# (the compiled wrapper keeps the real model in an attribute named _orig_mod). torch 1.13
# has no torch.compile, so the wrapper is reproduced by a module holding the model under
# that attribute name; the keys, and the error, are the same.
import io

import torch
import torch.nn as nn

torch.manual_seed(0)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(32, 64), nn.GELU())
        self.head = nn.Linear(64, 5)


class CompiledLike(nn.Module):
    def __init__(self, model):
        super().__init__()
        self._orig_mod = model


buf = io.BytesIO()
torch.save(CompiledLike(Classifier()).state_dict(), buf)
buf.seek(0)
print("exporting best model for inference", flush=True)
model = Classifier()
model.load_state_dict(torch.load(buf))
