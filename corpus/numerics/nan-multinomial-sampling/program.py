# Sampling from a policy whose logits became NaN (a division by a zero temperature
# computed from an empty running statistic): softmax of NaN is NaN, and
# torch.multinomial refuses the probabilities.
import torch

torch.manual_seed(0)
policy = torch.nn.Linear(6, 4)
state = torch.randn(2, 6)
returns_seen = torch.zeros(0)
temperature = returns_seen.std() if returns_seen.numel() > 1 else returns_seen.sum()  # 0.0
logits = policy(state) / temperature * 0.0  # 0/0 -> nan
print(f"episode 12: temperature={temperature.item()} logits[0]={logits[0].tolist()}", flush=True)
probs = torch.softmax(logits, dim=-1)
action = torch.multinomial(probs, 1)
