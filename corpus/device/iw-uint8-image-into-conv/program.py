# Decoded image bytes (numpy uint8, HWC) are converted with torch.from_numpy and permuted to CHW,
# but never cast to float or scaled to [0, 1] before the float32 Conv2d.
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(0)
images = rng.integers(0, 256, size=(4, 64, 64, 3), dtype=np.uint8)   # as an image decoder returns
model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 5))
batch = torch.from_numpy(images).permute(0, 3, 1, 2)
print("batch", batch.dtype, tuple(batch.shape))
logits = model(batch)
