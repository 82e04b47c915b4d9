# A checkpoint that stores the argparse.Namespace of the training run, loaded with
# weights_only=True: argparse.Namespace is not on the list of allowed globals.
import argparse
import io

import torch

torch.manual_seed(0)
parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=0.1)
args = parser.parse_args([])

buf = io.BytesIO()
torch.save({"args": args, "state_dict": torch.nn.Linear(3, 1).state_dict(), "epoch": 5}, buf)
buf.seek(0)
print("loading checkpoint (weights_only=True)", flush=True)
ckpt = torch.load(buf, weights_only=True)
