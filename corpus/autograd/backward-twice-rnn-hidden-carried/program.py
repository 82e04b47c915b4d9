# Truncated BPTT without detaching: the hidden state of batch i is fed into batch i+1,
# so the second backward reaches into the graph of the first batch, already freed.
import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.GRU(input_size=8, hidden_size=16, batch_first=True)
head = nn.Linear(16, 1)
opt = torch.optim.SGD(list(rnn.parameters()) + list(head.parameters()), lr=0.01)
seq = torch.randn(4, 60, 8)
target = torch.randn(4, 60, 1)
h = torch.zeros(1, 4, 16)
for i, start in enumerate(range(0, 60, 20)):
    out, h = rnn(seq[:, start:start + 20], h)      # h is not detached
    loss = nn.functional.mse_loss(head(out), target[:, start:start + 20])
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"chunk {i}: loss={loss.item():.4f}")
