# Token ids from a tokenizer with a bigger vocabulary than the embedding table (PyTorch 1.13, CPU).
import torch
import torch.nn as nn

embed = nn.Embedding(100, 16)


def main():
    tokens = torch.tensor([[5, 17, 250, 3]])
    return embed(tokens)
