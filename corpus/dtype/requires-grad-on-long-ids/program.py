import torch

# A saliency script asks for gradients with respect to the token ids instead of their embeddings.
emb = torch.nn.Embedding(100, 16)
ids = torch.tensor([[5, 17, 42, 3]])
ids.requires_grad_()
score = emb(ids).sum()
score.backward()
print(ids.grad)
