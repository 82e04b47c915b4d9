import torch
import torch.nn as nn

torch.manual_seed(0)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(30, 16)
        self.norm = nn.LayerNorm(16)
        self.out = nn.Linear(16, 2)

    def forward(self, ids):
        return self.out(self.norm(self.embed(ids)))


model = Encoder().half().eval()
with torch.no_grad():
    print(model(torch.randint(0, 30, (2, 7))))
