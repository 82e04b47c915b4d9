import torch

# Negative sampling weighted by word counts: the counts are int64, as counted.
counts = torch.tensor([120, 45, 3, 77, 9])
negatives = torch.multinomial(counts, 3, replacement=True)
print(negatives)
