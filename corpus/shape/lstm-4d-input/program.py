import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.LSTM(input_size=40, hidden_size=64, batch_first=True)
spectrograms = torch.randn(8, 1, 40, 100)
print("input", tuple(spectrograms.shape))
output, (h, c) = rnn(spectrograms)
print(output.shape)
