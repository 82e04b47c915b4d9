# A vanilla RNN over long sequences with recurrent weights scaled up: gradients grow
# exponentially through time. clip_grad_norm_ is asked to fail on a non-finite norm
# instead of silently scaling every gradient by nan.
import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.RNN(8, 64, nonlinearity="relu", batch_first=True)
with torch.no_grad():
    rnn.weight_hh_l0.mul_(2.5)
head = nn.Linear(64, 1)
params = list(rnn.parameters()) + list(head.parameters())
opt = torch.optim.SGD(params, lr=1e-3)

x = torch.randn(4, 200, 8)
y = torch.randn(4, 1)
for step in range(3):
    out, _ = rnn(x)
    loss = nn.functional.mse_loss(head(out[:, -1]), y)
    opt.zero_grad()
    loss.backward()
    print(f"step {step} loss {loss.item():.4e}", flush=True)
    torch.nn.utils.clip_grad_norm_(params, max_norm=1.0, error_if_nonfinite=True)
    opt.step()
