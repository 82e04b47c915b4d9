# Debug printing of a whole tensor with unlimited width writes one ~90 KB line before the failure.
import sys

import torch

torch.manual_seed(0)
torch.set_printoptions(threshold=sys.maxsize, linewidth=sys.maxsize, precision=4)
logits = torch.randn(8, 1000)
print("logits:", logits.flatten())
probs = logits.softmax(dim=1)
targets = torch.randint(0, 1000, (8,))
loss = torch.nn.functional.binary_cross_entropy(probs, targets)
