# A healthy run with an early-stopping tracker that starts from best_loss=inf and prints it,
# plus a loss-scale field: non-finite words that are not a failure.
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(200, 5)
y = (x.sum(1) > 0).float().unsqueeze(1)
model = nn.Linear(5, 1)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
best_loss, patience = float("inf"), 5
print(f"init: best_loss={best_loss} patience={patience} loss_scale=inf (fp32, unused)")
for epoch in range(5):
    loss = nn.functional.binary_cross_entropy_with_logits(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    improved = loss.item() < best_loss
    best_loss = min(best_loss, loss.item())
    print(f"epoch {epoch}: train_loss={loss.item():.4f} best_loss={best_loss:.4f} improved={improved}")
