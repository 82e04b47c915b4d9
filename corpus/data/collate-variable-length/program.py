# Token sequences of different lengths batched with the default collate function, which
# stacks samples and so needs every sample to have the same shape (no padding collate_fn).
import torch
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class Sentences(Dataset):
    def __init__(self):
        g = torch.Generator().manual_seed(0)
        lengths = torch.randint(5, 20, (40,), generator=g)
        self.seqs = [torch.randint(1, 500, (int(n),), generator=g) for n in lengths]

    def __len__(self):
        return len(self.seqs)

    def __getitem__(self, idx):
        return self.seqs[idx], idx % 2


emb = torch.nn.EmbeddingBag(500, 16)
head = torch.nn.Linear(16, 2)
loader = DataLoader(Sentences(), batch_size=4, shuffle=False)
for tokens, labels in loader:
    logits = head(emb(tokens))
    print(torch.nn.functional.cross_entropy(logits, labels).item())
