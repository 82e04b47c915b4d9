# A training script that sends every line of a caught traceback through the logging module with a
# timestamped format, so each line carries "[2024-01-01 12:00:00,123][ERROR] ".
import logging
import traceback

import torch
import torch.nn as nn

logging.basicConfig(format="[%(asctime)s][%(levelname)s] %(message)s", level=logging.INFO)
log = logging.getLogger("trainer")

model = nn.Conv2d(3, 8, kernel_size=3)
for step in range(3):
    log.info("step %d: loading batch", step)
    images = torch.randn(8, 3, 32, 32)
    if step == 2:
        images = images.unsqueeze(1)
    try:
        out = model(images)
        log.info("step %d: output %s", step, tuple(out.shape))
    except RuntimeError:
        for line in traceback.format_exc().rstrip("\n").split("\n"):
            log.error(line)
        break
