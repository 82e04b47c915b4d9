import argparse
import torch

# A loader allow-lists the argparse Namespace stored in its checkpoints before torch.load.
torch.serialization.add_safe_globals([argparse.Namespace])
ckpt = torch.load("model.pt", weights_only=True)
print(ckpt.keys())
