# A refinement network takes the coarse segmentation (class ids, int64) as an extra input
# channel; the class-id map is concatenated and fed to the conv without converting it.
import torch
import torch.nn as nn

torch.manual_seed(0)
refine = nn.Conv2d(1, 8, 3, padding=1)
coarse_logits = torch.randn(2, 5, 32, 32)
coarse_ids = coarse_logits.argmax(dim=1, keepdim=True)     # int64 class ids
features = refine(coarse_ids)
