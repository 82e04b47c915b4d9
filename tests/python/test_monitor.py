"""triage.Monitor: the metric-signature rules on a live Python training loop."""
import math

import torch
import torch.nn as nn
import triage


def test_a_real_loop_that_diverges_is_caught_at_the_nan():
    torch.manual_seed(0)
    model = nn.Linear(8, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=3.0)  # far too high for this regression
    x, y = torch.randn(64, 8) * 4, torch.randn(64, 1)
    monitor = triage.Monitor(model, grad_every=1)
    found = None
    for step in range(200):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        found = monitor.observe(loss)
        if found:
            break
    assert found is not None, monitor.report().to_text()
    assert not math.isfinite(float(loss))
    assert found.top.category in ("numerics.nan_loss", "training.unstable_loss", "numerics.exploding_gradients")
    assert any(d.category == "numerics.nan_loss" for d in found.diagnoses)
    assert monitor.observe(float("nan")) is None  # reported once, not every step after


def test_a_healthy_loop_stays_quiet():
    torch.manual_seed(0)
    model = nn.Linear(8, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    x = torch.randn(64, 8)
    y = x @ torch.randn(8, 1)
    monitor = triage.Monitor(model, grad_every=5, check_every=50)
    for _ in range(200):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        assert monitor.observe(loss) is None
    assert not monitor.report(), monitor.report().to_text()


def test_a_loss_stuck_at_ln_classes_is_reported():
    monitor = triage.Monitor()
    for step in range(300):
        monitor.observe(math.log(10) + 0.002 * math.sin(step))
    report = monitor.report()
    assert report.top is not None and report.top.category == "training.not_learning", report.to_text()
