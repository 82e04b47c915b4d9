# A collate_fn that stacks the samples with np.array: one image of the batch has another size, so NumPy
# cannot make one array of them (the error is raised inside the worker's collate call).
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class Crops(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, idx):
        side = 28 if idx == 9 else 32  # one crop taken at the image border came out smaller
        return np.full((3, side, side), idx, dtype=np.float32), idx % 2


def collate_fn(batch):
    images = np.array([b[0] for b in batch])
    labels = np.array([b[1] for b in batch])
    return torch.from_numpy(images), torch.from_numpy(labels)


model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3 * 32 * 32, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(Crops(), batch_size=4, num_workers=2, collate_fn=collate_fn)
for epoch in range(2):
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
