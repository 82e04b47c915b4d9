import torch
import torch.nn as nn

torch.manual_seed(0)
embed = nn.Embedding(50, 16)
user_ids = torch.randint(0, 50, (8,))
age = torch.rand(8)
features = torch.cat([embed(user_ids), age], dim=1)
print(features.shape)
