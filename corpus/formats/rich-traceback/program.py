# rich.traceback.install() replaces sys.excepthook: the traceback is drawn in a box with source context.
import torch
import torch.nn as nn
from rich.traceback import install

install(width=100)

embedding = nn.Embedding(1000, 32)


def encode(token_ids):
    return embedding(token_ids).mean(dim=1)


batch = torch.randint(0, 1200, (4, 16))
encode(batch)
