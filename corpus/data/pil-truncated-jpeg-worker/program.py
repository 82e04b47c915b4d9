# One JPEG of the training folder was cut short (an interrupted copy): PIL opens its header, then
# fails while decoding it inside a DataLoader worker's __getitem__.
import os
import tempfile

import numpy as np
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
root = tempfile.mkdtemp(prefix="images-")
rng = np.random.default_rng(0)
for i in range(12):
    pixels = rng.integers(0, 255, size=(64, 64, 3), dtype=np.uint8)
    Image.fromarray(pixels).save(os.path.join(root, f"img_{i:03d}.jpg"), quality=90)
path = os.path.join(root, "img_005.jpg")
with open(path, "rb") as f:
    data = f.read()
with open(path, "wb") as f:
    f.write(data[: len(data) // 2])


class Folder(Dataset):
    def __init__(self, root):
        self.paths = sorted(os.path.join(root, n) for n in os.listdir(root))

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, idx):
        image = Image.open(self.paths[idx]).convert("RGB")
        x = torch.from_numpy(np.asarray(image, dtype=np.float32) / 255.0).permute(2, 0, 1)
        return x, idx % 2


model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3 * 64 * 64, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(Folder(root), batch_size=4, num_workers=2)
for epoch in range(2):
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
