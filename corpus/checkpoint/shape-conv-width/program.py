# A checkpoint from a wider network (base width 32) restored into a model built with the
# default width 16: conv, batch-norm and linear tensors all differ in their channel counts.
import io

import torch
import torch.nn as nn

torch.manual_seed(0)


def cnn(width):
    return nn.Sequential(
        nn.Conv2d(1, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(width, 10))


buf = io.BytesIO()
torch.save({"state_dict": cnn(32).state_dict(), "width": 32}, buf)
buf.seek(0)
ckpt = torch.load(buf)
net = cnn(16)
net.load_state_dict(ckpt["state_dict"])
