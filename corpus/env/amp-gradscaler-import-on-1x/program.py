import torch
from torch.amp import GradScaler

scaler = GradScaler("cuda")
print(scaler)
