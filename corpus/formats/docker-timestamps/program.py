# A real traceback; make.sh prefixes each line as `docker logs --timestamps` (RFC 3339, nanoseconds) shows it.
import torch
import torch.nn as nn

torch.manual_seed(0)
bn = nn.BatchNorm2d(16)
activations = torch.randn(8, 32, 14, 14)
normalised = bn(activations)
