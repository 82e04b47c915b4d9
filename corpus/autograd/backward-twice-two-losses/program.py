# Multi-task model: each task loss gets its own backward() through the shared trunk.
import torch
import torch.nn as nn

torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(10, 32), nn.Tanh())
cls_head, reg_head = nn.Linear(32, 3), nn.Linear(32, 1)
x = torch.randn(8, 10)
feats = trunk(x)
cls_loss = nn.functional.cross_entropy(cls_head(feats), torch.randint(0, 3, (8,)))
reg_loss = nn.functional.mse_loss(reg_head(feats), torch.randn(8, 1))
cls_loss.backward()
reg_loss.backward()
