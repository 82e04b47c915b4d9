# "Fixed" a backward-twice error with retain_graph=True instead of detaching the LSTM state.
# The next backward reaches into the previous step's graph, whose LSTM weights (seen through
# their transpose) were updated in place by opt.step() since: an in-place-modified error.
import resource
import torch
import torch.nn as nn

torch.manual_seed(0)
lstm = nn.LSTM(input_size=32, hidden_size=128, batch_first=True)
head = nn.Linear(128, 32)
opt = torch.optim.Adam(list(lstm.parameters()) + list(head.parameters()), lr=1e-3)
state = None
for step in range(1, 151):
    x = torch.randn(16, 20, 32)
    out, state = lstm(x, state)                  # state carries the whole history
    loss = nn.functional.mse_loss(head(out), x)
    opt.zero_grad()
    loss.backward(retain_graph=True)
    opt.step()
    if step % 25 == 0:
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print({"step": step, "loss": round(loss.item(), 4), "max_rss_mb": round(rss, 1)})
