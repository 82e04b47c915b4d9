# An image folder with one file that is not an image (an HTML error page saved under a .jpg name, as a
# failed download leaves it): PIL cannot identify it inside a DataLoader worker's __getitem__.
import os
import tempfile

import numpy as np
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
root = tempfile.mkdtemp(prefix="images-")
for i in range(12):
    Image.fromarray(np.full((32, 32, 3), i * 20, dtype=np.uint8)).save(os.path.join(root, f"img_{i:03d}.jpg"))
with open(os.path.join(root, "img_007.jpg"), "wb") as f:
    f.write(b"<html><body>404 Not Found</body></html>\n")


class Folder(Dataset):
    def __init__(self, root):
        self.paths = sorted(os.path.join(root, n) for n in os.listdir(root))

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, idx):
        image = Image.open(self.paths[idx]).convert("RGB")
        x = torch.from_numpy(np.asarray(image, dtype=np.float32) / 255.0).permute(2, 0, 1)
        return x, idx % 2


model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3 * 32 * 32, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(Folder(root), batch_size=4, num_workers=2)
for epoch in range(2):
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
