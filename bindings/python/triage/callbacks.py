"""Callbacks for PyTorch Lightning and Hugging Face Trainer (bindings/python/README.md, "Callbacks").

    trainer = lightning.Trainer(callbacks=[triage.callbacks.lightning()])
    trainer = transformers.Trainer(..., callbacks=[triage.callbacks.huggingface()])

Both feed the metrics the trainer logs (loss, validation loss, gradient norm, learning rate) to a
triage.Monitor, so the metric-signature rules (NaN onset, divergence, loss flat at ln C, overfitting)
watch the run; the first diagnosis is printed to stderr. The Lightning callback also diagnoses the
exception that interrupts fit/validate/test (on_exception) with its live frames. Hugging Face's Trainer
has no exception event: use triage.install() (or diagnose_exception in an except around train()).

Written against the documented callback APIs (Lightning's Callback: on_train_batch_end,
on_exception; transformers' TrainerCallback: on_log). Neither library is packaged by Debian and no
machine with them was available when this was written, so these two classes have NOT been run against
the real libraries; the metric mapping they share (MetricFeed) is tested on its own.
"""
import math
import sys

from . import _api
from ._monitor import Monitor

# Names trainers log, mapped to the names the signal rules read.
_NAMES = {
    "loss": "loss", "train_loss": "loss", "train/loss": "loss", "train_loss_step": "loss",
    "eval_loss": "val_loss", "val_loss": "val_loss", "val/loss": "val_loss", "validation_loss": "val_loss",
    "grad_norm": "grad_norm", "learning_rate": "lr", "lr": "lr",
}


def _number(value):
    try:
        value = value.detach() if hasattr(value, "detach") else value
        if hasattr(value, "numel") and value.numel() != 1:
            return None
        return float(value)
    except (TypeError, ValueError):
        return None


class MetricFeed:
    """Turns the metric dicts a trainer logs into Monitor steps; prints the first diagnosis."""

    def __init__(self, model=None, stream=None, **monitor_options):
        self.monitor = Monitor(model, **monitor_options)
        self.stream = stream
        self.val_loss = None
        self.reported = None

    def feed(self, metrics, step=None):
        """metrics: {name: number or one-element tensor}. Returns the Report the first time a failure
        is diagnosed, else None. A dict without a training loss only updates the validation loss."""
        values = {}
        for name, value in (metrics or {}).items():
            target = _NAMES.get(name)
            number = _number(value) if target else None
            if number is not None:
                values[target] = number
        if "val_loss" in values:
            self.val_loss = values.pop("val_loss")
        if "loss" not in values:
            return None
        loss = values.pop("loss")
        if self.val_loss is not None and math.isfinite(self.val_loss):
            values["val_loss"] = self.val_loss
        report = self.monitor.observe(loss, step=step, **values)
        if report is not None and self.reported is None:
            self.reported = report
            try:
                stream = self.stream or sys.stderr
                stream.write("\n" + "=" * 20 + " triage " + "=" * 20 + "\n" + report.to_text())
                stream.flush()
            except Exception:
                pass
        return report


def lightning(model=None, stream=None, **monitor_options):
    """A Lightning Callback (lightning.pytorch, else pytorch_lightning)."""
    try:
        from lightning.pytorch.callbacks import Callback
    except ImportError:
        try:
            from pytorch_lightning.callbacks import Callback
        except ImportError as exc:
            raise ImportError("triage.callbacks.lightning() needs lightning (or pytorch_lightning)") from exc

    class TriageCallback(Callback):
        def __init__(self):
            super().__init__()
            self.feed = MetricFeed(model, stream, **monitor_options)

        def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
            metrics = dict(getattr(trainer, "callback_metrics", {}) or {})
            loss = outputs.get("loss") if isinstance(outputs, dict) else outputs
            if loss is not None:
                metrics["loss"] = loss
            self.feed.feed(metrics, step=getattr(trainer, "global_step", None))

        def on_exception(self, trainer, pl_module, exception):
            _api._report_uncaught(exception, stream or sys.stderr)

    return TriageCallback()


def huggingface(model=None, stream=None, **monitor_options):
    """A transformers TrainerCallback."""
    try:
        from transformers import TrainerCallback
    except ImportError as exc:
        raise ImportError("triage.callbacks.huggingface() needs transformers") from exc

    class TriageCallback(TrainerCallback):
        def __init__(self):
            super().__init__()
            self.feed = MetricFeed(model, stream, **monitor_options)

        def on_log(self, args, state, control, logs=None, **kwargs):
            self.feed.feed(logs, step=getattr(state, "global_step", None))

    return TriageCallback()
