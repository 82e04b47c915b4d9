import torch

# Per-sample scalar scores collected in a list and joined with torch.cat instead of torch.stack.
scores = [torch.tensor(0.5), torch.tensor(0.7), torch.tensor(0.1)]
batch = torch.cat(scores)
