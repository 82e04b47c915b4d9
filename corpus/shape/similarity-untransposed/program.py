import torch
import torch.nn.functional as F

torch.manual_seed(0)
queries = F.normalize(torch.randn(8, 16), dim=1)
keys = F.normalize(torch.randn(8, 16), dim=1)
similarity = torch.matmul(queries, keys)
print(similarity.argmax(dim=1))
