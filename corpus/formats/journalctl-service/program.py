# An inference service started by systemd; make.sh prefixes each line as `journalctl -u SERVICE` shows it.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2), nn.ReLU(), nn.Conv2d(16, 32, 3, stride=2))
model.eval()
with torch.no_grad():
    preview = model(torch.randint(0, 256, (1, 3, 64, 64), dtype=torch.uint8))
