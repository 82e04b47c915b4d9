# Images of different sizes (no resize/crop to a common size) collated inside a worker
# process: the stack error comes back wrapped in the worker's re-raise.
import torch
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
SIZES = [(224, 224)] * 10 + [(224, 168)] + [(224, 224)] * 5


class Scans(Dataset):
    def __len__(self):
        return len(SIZES)

    def __getitem__(self, idx):
        h, w = SIZES[idx]
        return torch.rand(3, h, w), idx % 2


model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, stride=4), torch.nn.AdaptiveAvgPool2d(1),
                            torch.nn.Flatten(), torch.nn.Linear(4, 2))
loader = DataLoader(Scans(), batch_size=4, num_workers=2)
for step, (x, y) in enumerate(loader):
    loss = torch.nn.functional.cross_entropy(model(x), y)
    print(f"[train] step={step} loss={loss.item():.4f}", flush=True)
