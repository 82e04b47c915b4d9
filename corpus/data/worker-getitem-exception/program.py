# An exception inside Dataset.__getitem__ in a worker process: the loader re-raises it
# in the main process wrapped in "Caught ... in DataLoader worker process N".
import torch
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)

RECORDS = [{"pixels": [0.1 * i] * 12, "label": i % 3} for i in range(30)]
RECORDS[17] = {"pixels": [0.5] * 12}  # one corrupt record without a label


class Records(Dataset):
    def __len__(self):
        return len(RECORDS)

    def __getitem__(self, idx):
        rec = RECORDS[idx]
        return torch.tensor(rec["pixels"]), rec["label"]


model = torch.nn.Linear(12, 3)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loader = DataLoader(Records(), batch_size=6, num_workers=2)
for epoch in range(2):
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
