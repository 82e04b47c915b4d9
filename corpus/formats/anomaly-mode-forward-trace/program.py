# torch.autograd.set_detect_anomaly(True): backward fails on a NaN gradient, and anomaly mode first
# prints a warning holding the traceback of the forward call that created the failing node.
import torch

torch.autograd.set_detect_anomaly(True)


def normalise(x):
    norms = x.norm(dim=1, keepdim=True)
    return x / norms


features = torch.randn(4, 3, requires_grad=True)
with torch.no_grad():
    features[2].zero_()
loss = normalise(features).sum()
loss.backward()
