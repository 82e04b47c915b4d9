import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
config = {"num_features": 16, "hidden": 32, "num_classes": 3}

features = torch.randn(256, 20)
targets = torch.randint(0, 3, (256,))
loader = DataLoader(TensorDataset(features, targets), batch_size=32, shuffle=True)
print(f"loaded {len(features)} rows with {features.shape[1]} columns")

model = nn.Sequential(
    nn.Linear(config["num_features"], config["hidden"]),
    nn.ReLU(),
    nn.Linear(config["hidden"], config["num_classes"]),
)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()

for epoch in range(2):
    for batch_idx, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} done")
