import torch
import torch.nn as nn

vocab_size = 1000
emb = nn.Embedding(vocab_size, 64).cuda()
head = nn.Linear(64, vocab_size).cuda()
token_ids = torch.randint(0, 1200, (8, 32), device="cuda")  # tokenizer vocabulary larger than the table
logits = head(emb(token_ids))
loss = nn.functional.cross_entropy(logits.view(-1, vocab_size), token_ids.view(-1).clamp(max=vocab_size - 1))
print("loss", loss.item())
