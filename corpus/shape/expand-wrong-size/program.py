import torch

torch.manual_seed(0)
class_bias = torch.randn(3, 4)
logits = torch.randn(5, 5)
logits = logits + class_bias.expand(5, 5)
print(logits)
