# A training step that logs its failure through rich's RichHandler(rich_tracebacks=True): logger.exception()
# draws rich's traceback box inside the record's message column, so the box and the exception line under it
# are indented by the time and level columns. Run with output to a file, rich lays it out 80 columns wide:
# the box is narrow, frame locations and the exception line wrap.
import logging

import torch
import torch.nn as nn
from rich.logging import RichHandler

logging.basicConfig(level=logging.INFO, format="%(message)s", handlers=[RichHandler(rich_tracebacks=True)])
log = logging.getLogger("train")

model = nn.Sequential(nn.Conv2d(3, 64, 3), nn.Flatten(), nn.Linear(64, 128))
images = torch.randn(4, 3, 32, 32)


def train_step(batch):
    return model(batch).sum()


log.info("starting training")
try:
    train_step(images)
except Exception:
    log.exception("training step failed")
log.info("stopping")
