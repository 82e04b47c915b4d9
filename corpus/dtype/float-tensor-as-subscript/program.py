import torch

torch.manual_seed(0)
probs = torch.softmax(torch.randn(6, 5), dim=1)
best = torch.zeros(6)
best[:] = probs.argmax(dim=1)
class_names = torch.arange(5) * 10
print(class_names[best])
