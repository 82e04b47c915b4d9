# Feature vectors are L2-normalised with x / x.norm(); a padded (all-zero) row has norm 0,
# so the forward already holds NaN, hidden from the loss by nan_to_num; backward then
# carries the NaN activations into the matmul gradient.
import torch
import torch.nn as nn

torch.manual_seed(0)
proj = nn.Linear(8, 4, bias=False)
feats = torch.randn(5, 8)
feats[4] = 0.0                              # padding row
with torch.autograd.set_detect_anomaly(True):
    z = proj(feats)
    n = torch.linalg.vector_norm(z, dim=1, keepdim=True)
    z = z / n
    sim = z @ z.t()
    loss = torch.nan_to_num(sim).mean()
    print(f"similarity loss: {loss.item():.4f}")
    loss.backward()
