# A language model checkpoint trained with a 32000-token vocabulary is loaded into a model
# built from a tokenizer that has 32005 tokens (special tokens were added).
import io

import torch
import torch.nn as nn

torch.manual_seed(0)


class TinyLM(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab, 32)
        self.rnn = nn.GRU(32, 32, batch_first=True)
        self.lm_head = nn.Linear(32, vocab)


buf = io.BytesIO()
torch.save(TinyLM(32000).state_dict(), buf)
buf.seek(0)
print("tokenizer vocab size: 32005 (5 added special tokens)", flush=True)
lm = TinyLM(32005)
lm.load_state_dict(torch.load(buf), strict=False)
