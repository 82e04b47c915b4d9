# Plays the part of a notebook / interactive session: the Dataset class is defined in code
# passed to the interpreter with -c, so it lives in a __main__ module that has no file.
# DataLoader workers started with 'spawn' (the default on macOS and Windows) unpickle the
# dataset by importing its class from __main__, and cannot find it there.
import subprocess
import sys

CELL = '''
import torch
from torch.utils.data import DataLoader, Dataset

class Squares(Dataset):
    def __len__(self):
        return 32
    def __getitem__(self, i):
        return torch.tensor([float(i * i)])

torch.manual_seed(0)
loader = DataLoader(Squares(), batch_size=8, num_workers=1, multiprocessing_context="spawn")
print("iterating", flush=True)
for batch in loader:
    print(batch.sum().item())
'''
result = subprocess.run([sys.executable, "-c", CELL])
sys.exit(result.returncode)
