import torch
import torch.nn as nn

torch.manual_seed(0)


class Tagger(nn.Module):
    def __init__(self, vocab=100, emb=64, hidden=32, tags=5):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb)
        self.rnn = nn.LSTM(input_size=32, hidden_size=hidden, batch_first=True)
        self.out = nn.Linear(hidden, tags)

    def forward(self, tokens):
        h, _ = self.rnn(self.embed(tokens))
        return self.out(h)


model = Tagger()
tokens = torch.randint(0, 100, (4, 12))
print(model(tokens).shape)
