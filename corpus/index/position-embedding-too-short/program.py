import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader

torch.manual_seed(0)
MAX_LEN, VOCAB = 64, 500


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, 32, padding_idx=0)
        self.pos = nn.Embedding(MAX_LEN, 32)
        layer = nn.TransformerEncoderLayer(32, 4, 64, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 1)
        self.out = nn.Linear(32, 2)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1]).unsqueeze(0)
        h = self.enc(self.tok(ids) + self.pos(positions))
        return self.out(h.mean(dim=1))


lengths = [12, 30, 25, 40, 18, 22, 80, 35]
docs = [(torch.randint(1, VOCAB, (n,)), i % 2) for i, n in enumerate(lengths)]


def collate(batch):
    ids = pad_sequence([d for d, _ in batch], batch_first=True)
    return ids, torch.tensor([y for _, y in batch])


loader = DataLoader(docs, batch_size=2, collate_fn=collate)
model = Classifier()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step, (ids, y) in enumerate(loader):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(ids), y)
    loss.backward()
    opt.step()
    print(f"step {step} seq_len {ids.shape[1]} loss {loss.item():.4f}")
