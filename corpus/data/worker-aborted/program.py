# A native library aborts inside a DataLoader worker (here os.abort() stands in for a C
# assertion failure in a decoding library, e.g. one whose thread pool was initialised in the
# parent before fork). Validation runs fine in the main process; the worker dies with SIGABRT.
import os

import torch
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class Clips(Dataset):
    def __len__(self):
        return 40

    def __getitem__(self, idx):
        if torch.utils.data.get_worker_info() is not None and idx == 13:
            os.abort()
        return torch.randn(2, 100), idx % 2


print("sanity check in main process:", Clips()[13][0].shape, flush=True)
for epoch in range(2):
    n = 0
    for x, y in DataLoader(Clips(), batch_size=4, num_workers=2):
        n += len(x)
    print(f"epoch {epoch}: {n} samples", flush=True)
