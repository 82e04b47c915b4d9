# New tokens are added to the vocabulary and the embedding table is grown in place with
# resize_() on its weight Parameter, while autograd is recording.
import torch
import torch.nn as nn

torch.manual_seed(0)
vocab = ["<pad>", "the", "cat", "sat"]
emb = nn.Embedding(len(vocab), 8, padding_idx=0)
print(f"vocab size {len(vocab)}, table {tuple(emb.weight.shape)}")
vocab += ["<mask>", "<sep>"]
emb.weight.resize_(len(vocab), 8)
