import logging
import numpy as np
import torch
import torch.nn as nn

logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
log = logging.getLogger("regression")
rng = np.random.default_rng(0)
torch.manual_seed(0)

features = rng.normal(size=(128, 8)).astype(np.float32)
prices = features @ rng.normal(size=(8, 1)) + 0.1 * rng.normal(size=(128, 1))
log.info("loaded %d rows, %d features", *features.shape)
log.info("target mean %.3f std %.3f", prices.mean(), prices.std())

model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
x = torch.from_numpy(features)
y = torch.from_numpy(prices)
for epoch in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    log.info("epoch %d forward ok, loss dtype %s", epoch, loss.dtype)
    loss.backward()
    opt.step()
