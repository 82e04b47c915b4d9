# A gradient-flow check that reads .grad of the model's parameters after they were
# "moved" with a tensor op (weights tied by multiplying a shared parameter), so the
# tensors checked are intermediate results: their .grad is None and the check reports
# every layer as receiving no gradient.
import torch
import torch.nn as nn

torch.manual_seed(0)
shared = nn.Parameter(torch.randn(8, 8) * 0.1)
enc_w = shared * 1.0          # meant as "the encoder's copy" of the tied weight
dec_w = shared.t() * 1.0      # and the decoder's
x = torch.randn(16, 8)
recon = torch.tanh(x @ enc_w) @ dec_w
loss = (recon - x).pow(2).mean()
loss.backward()
for name, t in [("encoder.weight", enc_w), ("decoder.weight", dec_w)]:
    g = t.grad
    print(f"{name}: grad {'None' if g is None else f'{g.norm():.4f}'}", flush=True)
