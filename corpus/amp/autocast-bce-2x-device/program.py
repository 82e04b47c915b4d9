import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(20, 1), nn.Sigmoid()).cuda()
x = torch.randn(8, 20, device="cuda")
y = torch.rand(8, 1, device="cuda").round()
with torch.autocast("cuda", dtype=torch.float16):
    loss = nn.BCELoss()(model(x), y)
print(loss.item())
