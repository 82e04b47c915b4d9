# A training script hard-codes .cuda() and is run on a CPU-only machine/build.
import torch
import torch.nn as nn

torch.manual_seed(0)
print(f"torch {torch.__version__}")
print("building model: 2 x Linear(784 -> 256 -> 10)")
model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
print(f"parameters: {sum(p.numel() for p in model.parameters())}")
model = model.cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
