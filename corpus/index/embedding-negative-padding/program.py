import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence

torch.manual_seed(0)


class BagOfWords(nn.Module):
    def __init__(self, vocab_size=50, dim=8):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        self.fc = nn.Linear(dim, 2)

    def forward(self, ids):
        return self.fc(self.embed(ids).mean(dim=1))


seqs = [torch.tensor([3, 14, 15]), torch.tensor([9, 2]), torch.tensor([6, 5, 3, 5])]
ids = pad_sequence(seqs, batch_first=True, padding_value=-1)
model = BagOfWords()
print(model(ids))
