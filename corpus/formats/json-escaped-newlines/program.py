# A structured (JSON lines) logger: the traceback is a JSON string, so the whole failure is one line
# with literal "\n" escapes between the traceback's lines.
import json
import logging
import sys
import traceback

import torch


class JsonFormatter(logging.Formatter):
    def format(self, record):
        entry = {"level": record.levelname, "logger": record.name, "msg": record.getMessage()}
        if record.exc_info:
            entry["exc"] = "".join(traceback.format_exception(*record.exc_info))
        return json.dumps(entry)


handler = logging.StreamHandler(sys.stdout)
handler.setFormatter(JsonFormatter())
log = logging.getLogger("worker")
log.addHandler(handler)
log.setLevel(logging.INFO)

log.info("loading checkpoint")
state = {"encoder.weight": torch.randn(4, 4), "encoder.bias": torch.randn(4)}
model = torch.nn.Sequential(torch.nn.Linear(4, 4))
try:
    model.load_state_dict(state)
except RuntimeError:
    log.exception("checkpoint restore failed")
    sys.exit(1)
