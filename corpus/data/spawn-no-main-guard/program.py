# A training script without an `if __name__ == "__main__":` guard, run with the spawn start
# method (the default on Windows and macOS): each worker re-imports the script as its main
# module, reaches the DataLoader loop again, and tries to start workers of its own.
import multiprocessing

import torch
from torch.utils.data import DataLoader, TensorDataset

multiprocessing.set_start_method("spawn", force=True)
torch.manual_seed(0)
ds = TensorDataset(torch.randn(64, 3), torch.randint(0, 2, (64,)))
loader = DataLoader(ds, batch_size=16, num_workers=2)
print("starting epoch", flush=True)
for x, y in loader:
    print(x.shape)
