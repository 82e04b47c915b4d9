# A REINFORCE agent normalises returns by the episode's reward statistics. One episode ends
# immediately (no rewards), its mean over an empty tensor is nan, the nan loss is
# back-propagated, the optimizer writes nan into every weight, and on the next episode
# Categorical(probs=...) rejects the nan probabilities.
import torch
import torch.nn as nn

torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 3))
opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
for episode in range(8):
    steps = 0 if episode == 5 else 16
    obs = torch.randn(max(steps, 1), 4)
    dist = torch.distributions.Categorical(probs=torch.softmax(policy(obs), dim=-1))
    actions = dist.sample()
    rewards = torch.randn(steps)
    baseline = rewards.mean()  # nan for an empty episode
    advantage = (rewards.sum() - baseline) * torch.ones(len(actions))
    loss = -(dist.log_prob(actions) * advantage).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"episode {episode}: steps={steps} return={rewards.sum().item():.3f} loss={loss.item():.4f}", flush=True)
