# Embeddings are written to a numpy array for a nearest-neighbour index.
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(20, 8), nn.Tanh())
items = torch.randn(50, 20)
vectors = encoder(items)
index = np.asarray(vectors, dtype=np.float32)
print(index.shape)
