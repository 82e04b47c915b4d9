import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(6, 3)
x = torch.randn(5, 6)
probs = model(x).softmax(dim=1)
print("evaluating 5 samples")
positive = probs[:, 3]
print(positive)
