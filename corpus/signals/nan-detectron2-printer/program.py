# Bug: base learning rate 0.25 with momentum 0.9 for a small two-layer linear box regressor; the updates
# overshoot, the loss grows by orders of magnitude and becomes inf, then NaN, a few hundred
# iterations in. Printed in the layout of detectron2's CommonMetricPrinter
# ("eta: ...  iter: N  total_loss: ...  lr: ...  max_mem: NM").
import os
import torch
import torch.nn as nn

torch.manual_seed(0)
page = os.sysconf("SC_PAGE_SIZE")
def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * page // 2**20
x = torch.randn(4096, 32)
box = x[:, :4] * 2 + x[:, 4:8]
net = nn.Sequential(nn.Linear(32, 128), nn.Linear(128, 4))
opt = torch.optim.SGD(net.parameters(), lr=0.25, momentum=0.9)
max_mem = 0
for it in range(300):
    idx = torch.randint(0, 4096, (64,))
    loss_box_reg = nn.functional.mse_loss(net(x[idx]), box[idx])
    opt.zero_grad()
    loss_box_reg.backward()
    opt.step()
    max_mem = max(max_mem, rss_mb())
    if it % 4 == 3:
        print(f" eta: 0:00:{(300 - it) // 20:02d}  iter: {it}  total_loss: {loss_box_reg.item():.4g}  "
              f"loss_box_reg: {loss_box_reg.item():.4g}  time: 0.0031  data_time: 0.0002  lr: {0.25}  max_mem: {max_mem}M")
