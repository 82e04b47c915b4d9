# Healthy run: the loss converges within a few epochs and then sits at a low plateau; resident
# memory rises while the first batches allocate buffers and then stays level. tqdm postfix with
# the loss and the current RSS from /proc/self/statm.
import os
import torch
import torch.nn as nn
from tqdm import tqdm

torch.manual_seed(0)
page = os.sysconf("SC_PAGE_SIZE")
def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * page / 2**20
x_all = torch.randn(8192, 64)
y_all = x_all @ torch.randn(64, 1)
model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 1))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for epoch in range(8):
    bar = tqdm(range(0, 8192, 256), desc=f"epoch {epoch}", mininterval=0, ncols=110)
    for i in bar:
        loss = nn.functional.mse_loss(model(x_all[i:i + 256]), y_all[i:i + 256])
        opt.zero_grad()
        loss.backward()
        opt.step()
        bar.set_postfix(loss=f"{loss.item():.5f}", mem=f"{rss_mb():.1f}MB")
