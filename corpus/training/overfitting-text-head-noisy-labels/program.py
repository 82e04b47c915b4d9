# Overfitting: a text-classifier head (EmbeddingBag + MLP) trained for many epochs on 64
# labelled snippets with partly random labels. Training cross-entropy goes to ~0 while the
# validation cross-entropy, after a short dip, climbs epoch after epoch.
import torch
import torch.nn as nn

torch.manual_seed(2)
vocab, n_train, n_val = 400, 64, 400
def make(n):
    tokens = torch.randint(0, vocab, (n, 12))
    y = (tokens < vocab // 2).sum(dim=1).gt(6).long()
    flip = torch.rand(n) < 0.3
    return tokens, torch.where(flip, 1 - y, y)
tr_x, tr_y = make(n_train)
va_x, va_y = make(n_val)
model = nn.Sequential(nn.EmbeddingBag(vocab, 64), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 2))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for epoch in range(1, 31):
    model.train()
    for i in range(0, n_train, 16):
        loss = nn.functional.cross_entropy(model(tr_x[i:i + 16]), tr_y[i:i + 16])
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        tl = nn.functional.cross_entropy(model(tr_x), tr_y).item()
        vl = nn.functional.cross_entropy(model(va_x), va_y).item()
    print(f"Epoch {epoch}: train_loss={tl:.4f}, val_loss={vl:.4f}", flush=True)
