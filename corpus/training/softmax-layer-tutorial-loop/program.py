# Bug: the network's last layer is nn.Softmax(dim=1), and the tutorial-style loop uses
# nn.CrossEntropyLoss, which expects logits. With 10 classes the loss starts at ln(10) = 2.3026
# and cannot fall below ln(1 + 9/e) = 1.4612; here it creeps down and flattens above it.
# Printed in the "Epoch [e/n], Step [s/m], Loss: x" layout of the classic PyTorch tutorials.
import torch
import torch.nn as nn

torch.manual_seed(6)
n, classes = 12000, 10
proto = torch.randn(classes, 64) * 2
labels = torch.randint(0, classes, (n,))
images = proto[labels] + torch.randn(n, 64)
model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, classes), nn.Softmax(dim=1))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
num_epochs, batch = 5, 100
total_step = n // batch
for epoch in range(num_epochs):
    perm = torch.randperm(n)
    for i in range(total_step):
        idx = perm[i * batch:(i + 1) * batch]
        loss = criterion(model(images[idx]), labels[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if (i + 1) % 20 == 0:
            print(f"Epoch [{epoch + 1}/{num_epochs}], Step [{i + 1}/{total_step}], Loss: {loss.item():.4f}", flush=True)
