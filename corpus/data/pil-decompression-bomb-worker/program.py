# PIL's decompression-bomb guard refuses an image of the dataset inside a DataLoader worker. To keep the
# files small, the program lowers PIL's limit (Image.MAX_IMAGE_PIXELS, 89478485 by default) to 4096 pixels
# and saves one 96x96 image among 32x32 ones: 9216 pixels, over twice the limit, as a huge scan is over the
# default one.
import os
import tempfile

import numpy as np
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset

Image.MAX_IMAGE_PIXELS = 4096
torch.manual_seed(0)
root = tempfile.mkdtemp(prefix="images-")
for i in range(12):
    side = 96 if i == 10 else 32
    Image.fromarray(np.full((side, side, 3), i * 20, dtype=np.uint8)).save(os.path.join(root, f"img_{i:03d}.png"))


class Folder(Dataset):
    def __init__(self, root):
        self.paths = sorted(os.path.join(root, n) for n in os.listdir(root))

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, idx):
        image = Image.open(self.paths[idx]).convert("RGB").resize((32, 32))
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
