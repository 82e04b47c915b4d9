import torch
import torch.nn as nn

model = nn.Sequential(
    nn.Conv2d(3, 256, 3, padding=1), nn.ReLU(),
    nn.Conv2d(256, 256, 3, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(256, 10),
).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
batch_size = 1024
images = torch.randn(batch_size, 3, 512, 512, device="cuda")
labels = torch.randint(0, 10, (batch_size,), device="cuda")
for step in range(3):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(images), labels)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
