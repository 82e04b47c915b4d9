# A Gaussian policy trained with a huge learning rate and no gradient clipping: after one
# update log_std has overflowed, so exp() gives inf (and 0); torch.distributions validates
# its arguments and rejects the non-finite scale.
import torch
import torch.nn as nn

torch.manual_seed(0)
actor = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 2))
log_std = nn.Parameter(torch.zeros(2))
opt = torch.optim.SGD(list(actor.parameters()) + [log_std], lr=1e4)

for update in range(20):
    obs = torch.randn(4, 3)
    dist = torch.distributions.Normal(actor(obs), log_std.exp())
    action = dist.sample()
    advantage = torch.randn(4) * 100
    loss = -(dist.log_prob(action).sum(-1) * advantage).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"update {update}: policy loss {loss.item():.3e}", flush=True)
