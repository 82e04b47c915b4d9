# The full run; make.sh drops the traceback's last line (the exception line), as a paste cut short does.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 8), nn.BatchNorm1d(8), nn.ReLU())
model.train()
single = torch.randn(1, 10)
out = model(single)
