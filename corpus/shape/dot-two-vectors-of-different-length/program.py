import torch

# A hand-written linear score: a feature vector against a weight vector that
# was sized before two more features were added to the extractor.
features = torch.randn(130)
weights = torch.randn(128)
score = features @ weights
print(score)
