import torch

torch.manual_seed(0)
sentences = [[4, 8, 15], [16, 23, 42, 7, 1], [3, 9]]
batch = torch.stack([torch.tensor(s) for s in sentences])
print(batch)
