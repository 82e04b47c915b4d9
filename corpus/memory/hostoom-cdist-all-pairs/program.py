# k-NN retrieval computes the full N x N distance matrix of 400k embeddings at once:
# 400000 * 400000 * 4 bytes = 640 GB.
import torch

torch.manual_seed(0)
n, d = 400_000, 8
emb = torch.randn(n, d)
print(f"embeddings: {tuple(emb.shape)}, computing all-pairs distances")
dist = torch.cdist(emb, emb)
knn = dist.topk(10, largest=False).indices
