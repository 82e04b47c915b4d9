"""The metric mapping the Lightning and Hugging Face callbacks share (triage.callbacks.MetricFeed).
The callbacks themselves need lightning / transformers, which Debian does not package: those tests run
only where the library is installed, and are reported as skipped otherwise (bindings/python/README.md)."""
import io
import math

import pytest
from triage.callbacks import MetricFeed, huggingface, lightning


def hf_logs(steps, blow_up_at):
    """Dicts shaped like Trainer's on_log payloads: loss, grad_norm, learning_rate, epoch."""
    for step in range(10, steps + 1, 10):
        loss = 2.0 * math.exp(-step / 400) if step < blow_up_at else float("nan")
        yield step, {"loss": loss, "grad_norm": 1.5, "learning_rate": 5e-5, "epoch": step / 1000}


def test_feed_reports_the_first_nan_once_with_the_trainers_step():
    out = io.StringIO()
    feed = MetricFeed(stream=out)
    reports = [feed.feed(logs, step=step) for step, logs in hf_logs(600, blow_up_at=450)]
    found = [r for r in reports if r is not None]
    assert len(found) == 1 and found[0].top.category == "numerics.nan_loss", out.getvalue()
    printed = out.getvalue()
    assert printed.count("=" * 20 + " triage " + "=" * 20) == 1 and "numerics.nan_loss" in printed
    assert "step=450 loss=nan" in feed.monitor.lines[44]


def test_evaluation_logs_become_the_validation_series():
    feed = MetricFeed(stream=io.StringIO())
    assert feed.feed({"eval_loss": 0.9, "epoch": 1.0}) is None  # no training loss: only remembered
    feed.feed({"loss": 1.2, "learning_rate": 1e-4}, step=100)
    assert feed.monitor.lines[-1] == "step=100 loss=1.2 lr=0.0001 val_loss=0.9"


def test_values_that_are_not_scalars_are_ignored():
    torch = pytest.importorskip("torch")
    feed = MetricFeed(stream=io.StringIO())
    feed.feed({"loss": torch.tensor(0.5), "grad_norm": torch.ones(3), "epoch": "one"}, step=1)
    assert feed.monitor.lines == ["step=1 loss=0.5"]


def test_callbacks_need_their_library():
    for make, name in ((lightning, "lightning"), (huggingface, "transformers")):
        try:
            __import__(name)
        except ImportError:
            with pytest.raises(ImportError, match=name):
                make()
        else:
            assert make() is not None
