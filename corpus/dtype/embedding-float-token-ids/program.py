import torch
import torch.nn as nn

torch.manual_seed(0)
sequences = [[5, 9, 2], [7, 1]]
max_len = max(len(s) for s in sequences)
batch = torch.full((len(sequences), max_len), 0.0)
for i, s in enumerate(sequences):
    batch[i, :len(s)] = torch.tensor(s)
embedding = nn.Embedding(20, 8, padding_idx=0)
print(embedding(batch).shape)
