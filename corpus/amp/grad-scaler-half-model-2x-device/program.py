import torch
import torch.nn as nn

model = nn.Linear(32, 4).cuda().half()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cuda")
x = torch.randn(16, 32, device="cuda", dtype=torch.float16)
y = torch.randint(0, 4, (16,), device="cuda")
with torch.autocast("cuda", dtype=torch.float16):
    loss = nn.functional.cross_entropy(model(x), y)
scaler.scale(loss).backward()
scaler.step(opt)
scaler.update()
print(loss.item())
