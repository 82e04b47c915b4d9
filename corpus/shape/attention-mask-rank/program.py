import torch

torch.manual_seed(0)
batch, heads, seq = 2, 4, 10
scores = torch.randn(batch, heads, seq, seq)
lengths = torch.tensor([10, 7])
pad = torch.arange(seq)[None, :] >= lengths[:, None]
mask = torch.zeros(batch, seq).masked_fill(pad, float("-inf"))
weights = (scores + mask).softmax(dim=-1)
print(weights.shape)
