import torch
import torch.nn as nn

torch.manual_seed(0)
num_classes = 3
seg_head = nn.Conv2d(4, num_classes, 1)
features = torch.randn(2, 4, 8, 8)
masks = torch.randint(0, num_classes, (2, 8, 8))
masks[:, 0, :] = 255
loss = nn.CrossEntropyLoss()(seg_head(features), masks)
loss.backward()
