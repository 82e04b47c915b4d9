# A long run with two distinct failures: an early one is caught and logged (the run goes on), a later one
# is fatal. The fatal one, last in the log, is the primary incident.
import logging

import torch
import torch.nn as nn

logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", level=logging.INFO)
log = logging.getLogger("fit")

model = nn.Sequential(nn.Linear(12, 12), nn.Tanh(), nn.Linear(12, 3))
optimizer = torch.optim.Adam(model.parameters())
for step in range(6):
    x = torch.randn(10, 12)
    y = torch.randint(0, 3, (10,))
    if step == 1:
        x = x.double()
    try:
        loss = nn.functional.cross_entropy(model(x), y)
    except RuntimeError:
        log.exception("step %d: skipping bad batch", step)
        continue
    loss.backward()
    optimizer.step()
    log.info("step %d: loss %.4f", step, loss.item())
    if step == 4:
        loss.backward()
