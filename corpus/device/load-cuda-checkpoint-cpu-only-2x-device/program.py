import torch
import torch.nn as nn

model = nn.Linear(8, 2)
model.load_state_dict(torch.load("gpu_ckpt.pt"))
print("loaded")
