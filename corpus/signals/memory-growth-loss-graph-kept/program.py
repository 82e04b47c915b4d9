# Bug: the validation loss of every step is appended to a list as a tensor, computed without
# torch.no_grad(), so each step's autograd graph and its saved activations stay alive; resident
# memory climbs step after step. Memory is the current RSS from /proc/self/statm.
import os
import torch
import torch.nn as nn

torch.manual_seed(0)
page = os.sysconf("SC_PAGE_SIZE")
def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * page / 2**20
x_all = torch.randn(8192, 128)
y_all = x_all[:, :10].argmax(dim=1)
model = nn.Sequential(nn.Linear(128, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
val_history = []
for step in range(1, 161):
    idx = torch.randint(0, 8192, (128,))
    loss = nn.functional.cross_entropy(model(x_all[idx]), y_all[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    vidx = torch.randint(0, 8192, (256,))
    val_history.append(nn.functional.cross_entropy(model(x_all[vidx]), y_all[vidx]))  # graph kept
    if step % 5 == 0:
        print(f"step {step:4d} | loss {loss.item():.4f} | val {val_history[-1].item():.4f} | mem {rss_mb():.1f} MB")
