# The model is first built on the 'meta' device to count parameters cheaply, then reused
# for a real forward pass; its positional-encoding buffer still lives on 'meta'.
import torch
import torch.nn as nn

torch.manual_seed(0)


class TinyEncoder(nn.Module):
    def __init__(self, dim=16, max_len=32, device=None):
        super().__init__()
        self.register_buffer("pos", torch.zeros(max_len, dim, device=device))
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        return self.proj(x + self.pos[: x.size(1)])


model = TinyEncoder(device="meta")
print("parameters:", sum(p.numel() for p in model.parameters()))
model.proj = nn.Linear(16, 16)          # re-created on CPU; the buffer was not
tokens = torch.randn(2, 10, 16)
out = model(tokens)
