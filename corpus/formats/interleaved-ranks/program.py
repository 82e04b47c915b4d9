# Two ranks of a job that fail at the same step for different reasons; make.sh interleaves their real
# outputs line by line without any prefix, as two processes writing to one terminal do.
import os

import torch
import torch.nn as nn

rank = int(os.environ["RANK"])
encoder = nn.Conv2d(3, 16, kernel_size=3, padding=1)
head = nn.Linear(16, 10)


def step(images, labels):
    features = encoder(images).mean(dim=(2, 3))
    return nn.functional.cross_entropy(head(features), labels)


if rank == 0:
    step(torch.randn(4, 3, 32, 32), torch.tensor([1, 2, 3, 10]))
else:
    step(torch.randn(4, 3, 32), torch.tensor([1, 2, 3, 4]))
