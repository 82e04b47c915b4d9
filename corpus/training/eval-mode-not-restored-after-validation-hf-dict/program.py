# A hand-written Trainer-style loop: evaluate() switches the model to eval mode and nothing switches it
# back, so from the second epoch on Dropout and BatchNorm stay in inference mode while training.
# The logging dict carries the model's mode, as the user added after suspecting it.
import torch
import torch.nn as nn

torch.manual_seed(7)
torch.set_num_threads(1)

X = torch.randn(1536, 24)
y = (X @ torch.randn(24, 3)).argmax(1)
Xv, yv = X[-256:], y[-256:]
X, y = X[:-256], y[:-256]


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(24, 96), nn.BatchNorm1d(96), nn.GELU(), nn.Dropout(0.3))
        self.head = nn.Linear(96, 3)

    def forward(self, x):
        return self.head(self.body(x))


model = Classifier()
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)


def evaluate():
    model.eval()
    with torch.no_grad():
        logits = model(Xv)
    return {"eval_loss": round(nn.functional.cross_entropy(logits, yv).item(), 4),
            "eval_accuracy": round((logits.argmax(1) == yv).float().mean().item(), 4)}


model.train()
step = 0
for epoch in range(4):
    for i in range(0, 1280, 64):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(X[i:i + 64]), y[i:i + 64])
        loss.backward()
        opt.step()
        step += 1
        if step % 10 == 0:
            print({"loss": round(loss.item(), 4), "model_training": model.training,
                   "learning_rate": 2e-3, "epoch": round(step / 20, 2)})
    print(dict(evaluate(), epoch=float(epoch + 1)))
