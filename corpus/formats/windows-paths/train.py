# A real traceback; make.sh rewrites its file paths into the Windows form a conda install prints
# (C:\Users\...\site-packages\torch\...), leaving every other byte as it was.
import torch
import torch.nn as nn

torch.manual_seed(0)
classifier = nn.Sequential(nn.Linear(20, 5), nn.LogSoftmax(dim=1))
criterion = nn.NLLLoss()
scores = classifier(torch.randn(6, 20))
targets = torch.rand(6) * 5
loss = criterion(scores, targets)
