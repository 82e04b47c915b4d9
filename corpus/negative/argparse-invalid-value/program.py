# A typo on the command line: argparse rejects the value and exits with a usage error.
import argparse

import torch

parser = argparse.ArgumentParser(prog="train.py")
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--epochs", type=int, default=10)
parser.add_argument("--batch-size", type=int, default=32)
args = parser.parse_args(["--lr", "3e-4", "--batch-size", "64x"])
torch.manual_seed(0)
