# A hand-written cross-entropy that takes log() of softmax probabilities: once the logits
# grow large some probabilities underflow to exactly 0, log(0) = -inf, and 0 * -inf = nan.
# The script just prints the epoch loss, which becomes nan and stays nan.
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(128, 20)
y = torch.randint(0, 5, (128,))
model = nn.Linear(20, 5)
opt = torch.optim.SGD(model.parameters(), lr=50.0)

for epoch in range(8):
    probs = torch.softmax(model(x), dim=1)
    onehot = nn.functional.one_hot(y, 5).float()
    loss = -(onehot * torch.log(probs)).sum(1).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch + 1}/8 - train loss: {loss.item():.4f} - lr: 50.0", flush=True)
