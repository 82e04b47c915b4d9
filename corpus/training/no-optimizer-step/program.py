# The training loop computes gradients and steps the LR scheduler but never calls
# optimizer.step(): the weights never change and the loss stays at ln(10) ~ 2.30.
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(512, 32)
y = (x[:, :10].argmax(1))  # learnable labels, 10 classes
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
with torch.no_grad():
    model[2].weight.mul_(0.01)
    model[2].bias.zero_()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
for epoch in range(5):
    total = 0.0
    for i in range(0, 512, 64):
        loss = nn.functional.cross_entropy(model(x[i:i + 64]), y[i:i + 64])
        opt.zero_grad()
        loss.backward()
        total += loss.item()
    sched.step()
    print(f"epoch {epoch}: train loss {total / 8:.4f} lr {sched.get_last_lr()[0]:.4f}", flush=True)
