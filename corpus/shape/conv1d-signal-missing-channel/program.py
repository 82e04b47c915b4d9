import torch
import torch.nn as nn

torch.manual_seed(0)
signals = torch.randn(4, 100)
encoder = nn.Sequential(nn.Conv1d(1, 8, kernel_size=5), nn.ReLU())
print(encoder(signals).shape)
