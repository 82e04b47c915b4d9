# Bug: the model ends in Softmax and its probabilities go into CrossEntropyLoss, which applies
# log_softmax again. The loss cannot fall below ln(1 + 9/e) = 1.4612 for 10 classes and plateaus
# there even though the classes are easy to separate. Progress printed with a tqdm postfix.
import torch
import torch.nn as nn
from tqdm import tqdm

torch.manual_seed(0)
x = torch.randn(4096, 32)
labels = (x[:, :10]).argmax(dim=1)
model = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 10), nn.Softmax(dim=1))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.CrossEntropyLoss()
for epoch in range(12):
    bar = tqdm(range(32), desc=f"Epoch {epoch}", mininterval=0, ncols=100)
    for i in bar:
        idx = torch.randint(0, 4096, (128,))
        loss = loss_fn(model(x[idx]), labels[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if i % 4 == 3:
            bar.set_postfix(loss=f"{loss.item():.4f}")
