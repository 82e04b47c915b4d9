# A binary classifier whose head ends in a Linear layer (raw scores), trained with nn.BCELoss, which
# reads probabilities: the first batch with a score outside [0, 1] stops training.
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(256, 20)
y = (x[:, 0] + 0.5 * x[:, 1] > 0).float().unsqueeze(1)
model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 1))
criterion = nn.BCELoss()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(3):
    for i in range(0, 256, 64):
        opt.zero_grad()
        loss = criterion(model(x[i:i + 64]), y[i:i + 64])
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
