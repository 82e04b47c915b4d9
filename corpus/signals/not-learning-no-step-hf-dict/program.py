# Bug: the training loop never calls optimizer.step(), so the weights never change and the
# cross-entropy over 10 classes stays near ln(10). Logged like Hugging Face Trainer's dict lines.
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(4096, 32)
labels = (x[:, :10]).argmax(dim=1)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
steps = 400
for step in range(1, steps + 1):
    idx = torch.randint(0, 4096, (128,))
    loss = nn.functional.cross_entropy(model(x[idx]), labels[idx])
    opt.zero_grad()
    loss.backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    # opt.step() is missing here
    if step % 10 == 0:
        print({'loss': round(loss.item(), 4), 'grad_norm': round(grad_norm.item(), 4),
               'learning_rate': 2e-05, 'epoch': round(step / 100, 2)})
