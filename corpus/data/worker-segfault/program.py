# A worker crashes with a segmentation fault inside __getitem__ (as a buggy native
# decoding library would); the loader reports the dead worker to the training loop.
import os
import signal

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

np.random.seed(0)
torch.manual_seed(0)


class AudioClips(Dataset):
    def __init__(self):
        self.clips = np.random.randn(40, 16000).astype(np.float32)

    def __len__(self):
        return len(self.clips)

    def __getitem__(self, idx):
        if idx == 21:
            os.kill(os.getpid(), signal.SIGSEGV)  # stands in for a crash in C code
        return torch.from_numpy(self.clips[idx])


loader = DataLoader(AudioClips(), batch_size=4, num_workers=1)
for i, batch in enumerate(loader):
    print(f"batch {i}: {tuple(batch.shape)} mean={batch.mean().item():.4f}", flush=True)
