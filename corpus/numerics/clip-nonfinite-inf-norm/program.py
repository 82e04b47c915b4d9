# A metric-learning loss computes distances as sqrt(sum((a - b)**2)); for a pair of
# identical embeddings the distance is 0 and the derivative of sqrt at 0 is infinite,
# so the backward pass yields nan gradients. Clipping by the max-norm (norm_type=inf)
# with error_if_nonfinite=True stops on it.
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(16, 8)
anchors = torch.randn(4, 16)
positives = anchors.clone()
positives[1:] += 0.1 * torch.randn(3, 16)  # pair 0 is an exact duplicate
opt = torch.optim.SGD(encoder.parameters(), lr=0.1)

for step in range(3):
    a, p = encoder(anchors), encoder(positives)
    dist = torch.sqrt(((a - p) ** 2).sum(dim=1))
    loss = dist.mean()
    opt.zero_grad()
    loss.backward()
    print(f"step {step}: mean distance {loss.item():.4f}", flush=True)
    torch.nn.utils.clip_grad_norm_(encoder.parameters(), max_norm=2.0,
                                   norm_type=float("inf"), error_if_nonfinite=True)
    opt.step()
