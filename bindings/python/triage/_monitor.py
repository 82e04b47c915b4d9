"""A per-step monitor for a Python training loop: the metric-signature rules on the live run.

    monitor = triage.Monitor(model)
    for step, batch in enumerate(loader):
        loss = ...; loss.backward(); optimizer.step()
        found = monitor.observe(loss)          # None, or a Report the first time something is diagnosed
    print(monitor.report())                    # the signatures over the whole run so far
"""
import math

from . import _api

_MAX_POINTS = 100000


class Monitor:
    """Records the loss (and, every `grad_every` steps, the total gradient norm) of each step, and checks
    them with the same signal rules the log reader uses (NaN onset, divergence, flat loss at ln C, ...).

    observe() costs a float conversion and an append per step; the engine runs only when a non-finite
    loss appears, every `check_every` steps (0: never by itself) and on report().
    """

    def __init__(self, model=None, grad_every=0, check_every=0, rules=None):
        self.model = model
        self.grad_every = int(grad_every)
        self.check_every = int(check_every)
        self.rules = rules
        self.step = 0
        self.lines = []
        self._reported = False

    def _grad_norm(self):
        import torch
        grads = [p.grad for p in self.model.parameters() if p.grad is not None]
        if not grads:
            return None
        with torch.no_grad():
            norms = [g.detach().norm() for g in grads]
            return float(torch.stack([n.to(norms[0].device) for n in norms]).norm())

    def observe(self, loss, step=None, **metrics):
        """Records one step. `loss` is a number or a one-element tensor; `step` the trainer's step
        number (default: one more than the last); other metrics by name (val_loss=..., lr=...).
        Returns a Report the first time a failure is diagnosed, else None."""
        self.step = int(step) if step is not None else self.step + 1
        value = float(loss.detach() if hasattr(loss, "detach") else loss)
        fields = [f"step={self.step}", f"loss={value!r}"]
        if self.model is not None and self.grad_every and self.step % self.grad_every == 0:
            norm = self._grad_norm()
            if norm is not None:
                fields.append(f"grad_norm={norm!r}")
        for name, v in metrics.items():
            fields.append(f"{name}={float(v.detach() if hasattr(v, 'detach') else v)!r}")
        if len(self.lines) < _MAX_POINTS:
            self.lines.append(" ".join(fields))
        due = not math.isfinite(value) or (self.check_every and self.step % self.check_every == 0)
        if due and not self._reported:
            report = self.report()
            if report.diagnoses:
                self._reported = True
                return report
        return None

    def report(self):
        """Diagnoses the steps recorded so far."""
        return _api.diagnose(self.lines, rules=self.rules, source="monitor")
