# Healthy run with dynamic loss scaling done by hand (the GradScaler recipe: scale the loss, skip
# the step and halve the scale when a gradient overflows, grow the scale after a run of good
# steps). The initial scale (2**128) does not fit float32, so the first step overflows once: one
# skipped step, grad_norm inf, then training proceeds normally. Hugging Face Trainer-style lines.
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(4096, 32)
labels = x[:, :10].argmax(dim=1)
model = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scale, good_steps = 2.0 ** 128, 0
for step in range(1, 401):
    idx = torch.randint(0, 4096, (128,))
    loss = nn.functional.cross_entropy(model(x[idx]), labels[idx])
    opt.zero_grad()
    (loss * scale).backward()
    for p in model.parameters():
        p.grad.div_(scale)
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
    if torch.isfinite(grad_norm):
        opt.step()
        good_steps += 1
        if good_steps % 2000 == 0:
            scale *= 2
    else:
        print(f"step {step}: non-finite gradients, step skipped, loss scale now {scale / 2}")
        scale, good_steps = scale / 2, 0
    if step % 10 == 0 or not torch.isfinite(grad_norm):
        print({'loss': round(loss.item(), 4), 'grad_norm': float(grad_norm), 'loss_scale': scale,
               'learning_rate': 0.1, 'epoch': round(step / 32, 2)})
