import torch
import torch.nn as nn

torch.manual_seed(0)
vocab, batch, seq = 50, 4, 10
model = nn.Sequential(nn.Embedding(vocab, 32), nn.Linear(32, vocab))
tokens = torch.randint(0, vocab, (batch, seq))
labels = torch.randint(0, vocab, (batch,))
logits = model(tokens)
loss = nn.CrossEntropyLoss()(logits.view(-1, vocab), labels)
loss.backward()
