# Audio clips of different durations batched by a hand-written collate_fn that stacks the
# waveforms, run in two DataLoader workers: the stack error comes back wrapped in the
# worker re-raise. Clips are resampled/cropped nowhere, so one short clip breaks its batch.
import torch
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
SECONDS = [2.0] * 6 + [1.5] + [2.0] * 5
RATE = 8000


class Clips(Dataset):
    def __len__(self):
        return len(SECONDS)

    def __getitem__(self, idx):
        return torch.randn(int(SECONDS[idx] * RATE)), idx % 3


def collate_clips(batch):
    waves = torch.stack([w for w, _ in batch])
    labels = torch.tensor([y for _, y in batch])
    return waves, labels


model = torch.nn.Sequential(torch.nn.Linear(2 * RATE, 32), torch.nn.ReLU(), torch.nn.Linear(32, 3))
loader = DataLoader(Clips(), batch_size=4, num_workers=2, collate_fn=collate_clips)
for step, (x, y) in enumerate(loader):
    loss = torch.nn.functional.cross_entropy(model(x), y)
    print(f"step {step} loss {loss.item():.4f}", flush=True)
