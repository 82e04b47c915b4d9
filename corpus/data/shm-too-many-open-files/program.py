# With the default file_descriptor sharing strategy every tensor received from a worker
# keeps a file descriptor open while the tensor is alive. The loop keeps every batch (a
# list of per-sample embeddings for later analysis) and the process runs with a low open
# file limit (set here with setrlimit, as a container or `ulimit -n 256` would).
import resource

import torch
from torch.utils.data import DataLoader, Dataset

resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
torch.manual_seed(0)


class Samples(Dataset):
    def __len__(self):
        return 4096

    def __getitem__(self, idx):
        return torch.full((16,), float(idx))


kept = []
for step, x in enumerate(DataLoader(Samples(), batch_size=4, num_workers=2)):
    kept.append(x)
    if step % 100 == 0:
        print(f"step {step}: kept {len(kept)} batches", flush=True)
