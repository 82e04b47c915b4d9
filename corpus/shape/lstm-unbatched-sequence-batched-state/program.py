import torch
import torch.nn as nn

# An LSTM fed one unbatched sequence (seq_len, features) with a batched initial state (layers, batch, hidden).
lstm = nn.LSTM(input_size=16, hidden_size=32)
seq = torch.randn(50, 16)
h0 = torch.zeros(1, 1, 32)
c0 = torch.zeros(1, 1, 32)
out, _ = lstm(seq, (h0, c0))
