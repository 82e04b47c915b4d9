# Healthy run: a regression net predicting a mean and a variance, trained with GaussianNLLLoss.
# The negative log-likelihood goes below zero by design once the predicted variance is small.
# Logged like Hugging Face Trainer's dict lines, with an evaluation every 100 steps.
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(4096, 8)
y = x @ torch.randn(8, 1) + 0.05 * torch.randn(4096, 1)
xv, yv = x[:512], y[:512]
model = nn.Sequential(nn.Linear(8, 64), nn.Tanh(), nn.Linear(64, 2))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
nll = nn.GaussianNLLLoss()
def loss_on(xb, yb):
    out = model(xb)
    return nll(out[:, :1], yb, nn.functional.softplus(out[:, 1:]) + 1e-6)
for step in range(1, 801):
    idx = torch.randint(512, 4096, (128,))
    loss = loss_on(x[idx], y[idx])
    opt.zero_grad()
    loss.backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
    opt.step()
    if step % 20 == 0:
        print({'loss': round(loss.item(), 4), 'grad_norm': round(grad_norm.item(), 4),
               'learning_rate': 0.003, 'epoch': round(step / 28, 2)})
    if step % 100 == 0:
        with torch.no_grad():
            print({'eval_loss': round(loss_on(xv, yv).item(), 4), 'epoch': round(step / 28, 2)})
