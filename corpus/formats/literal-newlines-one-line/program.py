# A real traceback; make.sh flattens it into one line with literal "\n" separators, as a job scheduler's
# status field or a CSV/DB cell stores it.
import torch
import torch.nn as nn

decoder = nn.Embedding(50, 16)
tokens = torch.tensor([[1, 4, 9], [2, 3, 4]], dtype=torch.float32)
hidden = decoder(tokens)
