# Pairwise distances via sqrt of squared differences: the diagonal is exactly 0 and the
# gradient of sqrt at 0 is infinite, and the pow backward below it multiplies that by a
# zero difference: 0 * inf = NaN, reported at PowBackward0 rather than at the sqrt.
import torch

torch.manual_seed(0)
emb = torch.randn(6, 3, requires_grad=True)
with torch.autograd.detect_anomaly():
    diff = emb.unsqueeze(0) - emb.unsqueeze(1)
    dist = (diff ** 2).sum(-1).sqrt()
    loss = dist.mean()
    print(f"mean pairwise distance: {loss.item():.4f}")
    loss.backward()
