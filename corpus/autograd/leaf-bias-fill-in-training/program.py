# Inside the training loop the output bias is reset with an in-place fill_ on the Parameter.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(20, 32), nn.Tanh(), nn.Linear(32, 5))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
data = torch.randn(40, 20)
labels = torch.randint(0, 5, (40,))
for epoch in range(3):
    for i in range(0, 40, 10):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(data[i:i + 10]), labels[i:i + 10])
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
    if epoch == 1:
        model[2].bias.fill_(0.0)           # "reset" the bias mid-training
