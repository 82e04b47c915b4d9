# Weights saved from a model wrapped in nn.DataParallel carry a 'module.' prefix on every
# key; loading them into the bare model fails on every key.
import os
import tempfile

import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        return self.fc(self.conv(x).mean((2, 3)))


path = os.path.join(tempfile.mkdtemp(), "best.pt")
trained = nn.DataParallel(Net())
torch.save(trained.state_dict(), path)
print(f"saved {os.path.basename(path)}", flush=True)

model = Net()
model.load_state_dict(torch.load(path))
