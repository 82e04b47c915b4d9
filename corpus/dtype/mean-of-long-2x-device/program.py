import torch

labels = torch.randint(0, 10, (128,), device="cuda")
print("label mean", labels.mean())
