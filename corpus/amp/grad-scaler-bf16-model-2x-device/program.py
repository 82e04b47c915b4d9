import torch
import torch.nn as nn

model = nn.Linear(32, 4).cuda().to(torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cuda")
x = torch.randn(16, 32, device="cuda", dtype=torch.bfloat16)
y = torch.randint(0, 4, (16,), device="cuda")
loss = nn.functional.cross_entropy(model(x), y)
scaler.scale(loss).backward()
scaler.unscale_(opt)
torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
scaler.step(opt)
scaler.update()
