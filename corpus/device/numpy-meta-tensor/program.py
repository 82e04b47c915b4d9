# A statistics helper calls .numpy() on a tensor that lives on a non-CPU device (here 'meta',
# the placeholder device used for deferred initialisation); the same path fails for cuda:0.
import torch
import torch.nn as nn

layer = nn.Linear(64, 64, device="meta")


def weight_stats(module):
    w = module.weight.detach().numpy()
    return w.mean(), w.std()


print(weight_stats(layer))
