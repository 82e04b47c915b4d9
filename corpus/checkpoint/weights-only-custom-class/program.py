# A checkpoint that pickles a whole user-defined object (a training config class) loaded
# with weights_only=True, the safe mode (the default from PyTorch 2.6 on): the restricted
# unpickler only accepts tensors and plain containers.
import io

import torch

torch.manual_seed(0)


class TrainConfig:
    def __init__(self):
        self.lr = 0.01
        self.epochs = 30


buf = io.BytesIO()
torch.save({"model": torch.nn.Linear(4, 2).state_dict(), "config": TrainConfig()}, buf)
buf.seek(0)
state = torch.load(buf, weights_only=True)
