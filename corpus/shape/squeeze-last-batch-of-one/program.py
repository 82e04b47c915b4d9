# A spectrogram encoder drops the channel axis with a bare squeeze(). With 17 clips and
# batch_size=8 the last batch holds one clip, squeeze() removes the batch axis as well,
# and BatchNorm1d reads the (mel bins, frames) matrix as a batch of 64 rows of 100 channels.
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class SpecEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.BatchNorm1d(64)
        self.proj = nn.Conv1d(64, 32, 3, padding=1)
        self.head = nn.Linear(32, 4)

    def forward(self, spec):  # spec: (batch, 1, 64 mel bins, 100 frames)
        x = self.norm(spec.squeeze())
        x = torch.relu(self.proj(x)).mean(dim=2)
        return self.head(x)


data = TensorDataset(torch.randn(17, 1, 64, 100), torch.randint(0, 4, (17,)))
model = SpecEncoder()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step, (spec, label) in enumerate(DataLoader(data, batch_size=8)):
    loss = nn.functional.cross_entropy(model(spec), label)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} batch {len(label)} loss {loss.item():.4f}", flush=True)
