import torch
import torch.nn as nn

torch.manual_seed(0)
image_tower = nn.Linear(32, 16)
text_tower = nn.Linear(20, 16)
fuse = nn.Linear(32, 2)

image_batch = torch.randn(8, 32)
text_batch = torch.randn(6, 20)
print("image batch", image_batch.shape[0], "text batch", text_batch.shape[0])
joint = torch.cat([image_tower(image_batch), text_tower(text_batch)], dim=1)
print(fuse(joint).shape)
