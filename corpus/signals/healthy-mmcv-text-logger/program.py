# Healthy run printed in the layout of mmcv's TextLoggerHook ("Epoch [e][i/n]\tlr: ..., loss: ...",
# memory in MB): a two-loss classifier/regressor whose losses fall and whose memory stays level.
import os
import time
import torch
import torch.nn as nn

torch.manual_seed(0)
page = os.sysconf("SC_PAGE_SIZE")
def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * page // 2**20
x = torch.randn(4096, 32)
cls = x[:, :5].argmax(dim=1)
box = x[:, 5:9] * 0.5
net = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 9))
opt = torch.optim.SGD(net.parameters(), lr=0.02, momentum=0.9)
iters = 200
for epoch in range(1, 4):
    t0 = time.time()
    for it in range(1, iters + 1):
        idx = torch.randint(0, 4096, (64,))
        out = net(x[idx])
        loss_cls = nn.functional.cross_entropy(out[:, :5], cls[idx])
        loss_bbox = nn.functional.smooth_l1_loss(out[:, 5:], box[idx])
        loss = loss_cls + loss_bbox
        opt.zero_grad()
        loss.backward()
        opt.step()
        if it % 10 == 0:
            dt = (time.time() - t0) / 10
            t0 = time.time()
            print(f"Epoch [{epoch}][{it}/{iters}]\tlr: {0.02:.3e}, eta: 0:00:{int(dt * (iters * (4 - epoch) - it)):02d}, "
                  f"time: {dt:.3f}, data_time: 0.001, memory: {rss_mb()}, loss_cls: {loss_cls.item():.4f}, "
                  f"loss_bbox: {loss_bbox.item():.4f}, loss: {loss.item():.4f}")
