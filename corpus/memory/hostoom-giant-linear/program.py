# A bag-of-words classifier sized from the raw vocabulary: Linear(200000, 200000) needs
# 200000 * 200000 * 4 bytes = 160 GB of host RAM for its weight alone.
import torch
import torch.nn as nn

torch.manual_seed(0)
vocab_size = 200_000
print(f"vocab size: {vocab_size}")
model = nn.Sequential(nn.Linear(vocab_size, vocab_size), nn.ReLU(), nn.Linear(vocab_size, 2))
