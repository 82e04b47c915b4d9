# A dataset path in Latin-1 bytes (not valid UTF-8) is written raw to the log before the failure, as a
# program printing file names from an old file system does; the log file is not valid UTF-8.
import sys

import torch

sys.stdout.buffer.write(b"loading /data/caf\xe9/r\xe9sum\xe9_embeddings.pt\n")
sys.stdout.flush()
table = torch.randn(100, 8)
ids = torch.tensor([3, 50, 150])
rows = table[ids]
