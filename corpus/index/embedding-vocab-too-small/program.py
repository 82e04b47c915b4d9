import torch
import torch.nn as nn

torch.manual_seed(0)
words = [f"w{i}" for i in range(1000)]
vocab = {w: i for i, w in enumerate(words)}
for special in ["<pad>", "<unk>", "<bos>", "<eos>"]:
    vocab[special] = len(vocab)


def encode(sentence):
    return [vocab["<bos>"]] + [vocab.get(w, vocab["<unk>"]) for w in sentence.split()] + [vocab["<eos>"]]


model = nn.Sequential(nn.Embedding(len(words), 32), nn.Flatten(), nn.Linear(32 * 5, 2))
batch = torch.tensor([encode("w1 w2 w3"), encode("w4 zzz w5")])
print("batch ids max:", batch.max().item())
print(model(batch))
