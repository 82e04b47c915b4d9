# logging.basicConfig() default format: the record's first line gets "ERROR:root:", the traceback that
# logging.exception() appends does not. The loop logs the failure and carries on.
import logging

import torch
import torch.nn as nn

logging.basicConfig()
model = nn.Sequential(nn.Flatten(), nn.Linear(784, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 10))
model.train()

for epoch in range(3):
    logging.warning("epoch %d: starting", epoch)
    batch = torch.randn(1 if epoch == 1 else 16, 1, 28, 28)
    try:
        logits = model(batch)
    except ValueError:
        logging.exception("epoch %d: training step failed", epoch)
