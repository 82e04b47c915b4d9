# A click-through model that takes the log of a standardised feature (negative for about half the rows):
# the NaNs pass through the network and the sigmoid, and BCELoss refuses the NaN probabilities.
import torch
import torch.nn as nn

torch.manual_seed(0)
features = torch.randn(512, 6)
clicks = (torch.rand(512, 1) < 0.2).float()
model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1), nn.Sigmoid())
criterion = nn.BCELoss()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step, i in enumerate(range(0, 512, 128)):
    x = features[i:i + 128].clone()
    x[:, 0] = torch.log(x[:, 0])   # "log of the dwell time", but the column was already standardised
    loss = criterion(model(x), clicks[i:i + 128])
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
