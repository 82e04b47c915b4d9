# A colouring log formatter (as coloredlogs/colorlog do) that wraps each record, traceback included,
# in ANSI escapes: the traceback's lines start and end inside colour codes.
import logging
import sys

import torch


class ColourFormatter(logging.Formatter):
    COLOURS = {"INFO": "\x1b[32m", "WARNING": "\x1b[33m", "ERROR": "\x1b[1;31m"}

    def format(self, record):
        text = super().format(record)
        return f"{self.COLOURS.get(record.levelname, '')}{text}\x1b[0m"


handler = logging.StreamHandler(sys.stdout)
handler.setFormatter(ColourFormatter("%(levelname)-8s %(name)s: %(message)s"))
log = logging.getLogger("train")
log.addHandler(handler)
log.setLevel(logging.INFO)

weights = torch.randn(10, 10, requires_grad=True)
log.info("initialised weights %s", tuple(weights.shape))
try:
    weights.add_(1.0)
except RuntimeError:
    log.exception("could not apply the update")
