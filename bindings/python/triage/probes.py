"""Live probes on a Python model: `triage.check(model, batch, targets, loss_fn)`.

The probes are the C++ ones (probes/, the `triage-probe` command): this module hands them a TorchScript
copy of the model and the batch, and applies their verdicts to a report from the same engine. Nothing is
implemented twice.

How it runs, and its limits:
- The model is copied (copy.deepcopy) and the copy is scripted (torch.jit.script) or, if that fails,
  traced on the batch (torch.jit.trace). A model that neither can export (data-dependent Python control
  flow that tracing would freeze, non-tensor inputs, several inputs) cannot be probed this way:
  check() raises ProbeError saying why. Only single-tensor inputs and targets are handed over.
- The loss must be one the command knows: cross-entropy, NLL, MSE or BCE-with-logits (the modules in
  torch.nn or the functions in torch.nn.functional); reductions other than the mean are not carried over.
- Probes that need a training step run one with the optimizer's kind (SGD, else Adam) and learning rate
  on the copy; the trainer's own step function is not called.
- The probes run in a child process (LibTorch is loaded there, not in this one) with a time budget.

What the caller's objects look like afterwards: exactly as before. Only the copy is exported; the
tracing forward runs between a save and a restore of the RNG state (CPU and CUDA), so the parameters,
gradients, buffers, requires_grad flags, train/eval modes, optimizer state and RNG state are unchanged
(tests/python/test_probes.py hashes all of them).
"""
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile

from . import _api, _triage
from ._report import Report

_LOSSES = {
    "CrossEntropyLoss": "cross_entropy", "cross_entropy": "cross_entropy",
    "NLLLoss": "nll", "nll_loss": "nll",
    "MSELoss": "mse", "mse_loss": "mse",
    "BCEWithLogitsLoss": "bce_with_logits", "binary_cross_entropy_with_logits": "bce_with_logits",
}


class ProbeError(RuntimeError):
    """check() could not run the probes (the model cannot be exported, the loss is unknown, ...)."""


def probe_command():
    """The triage-probe executable: $TRIAGE_PROBE, the one built with this module, or one on PATH."""
    path = os.environ.get("TRIAGE_PROBE")
    if path:
        return path
    try:
        from ._paths import PROBE
        if PROBE and os.path.exists(PROBE):
            return PROBE
    except ImportError:
        pass
    return shutil.which("triage-probe")


def loss_name(loss_fn):
    """The triage-probe --loss name of a torch loss module or function, or ProbeError."""
    if isinstance(loss_fn, str):
        key = loss_fn
    elif hasattr(loss_fn, "forward"):  # a torch.nn loss module
        key = type(loss_fn).__name__
    else:
        key = getattr(loss_fn, "__name__", repr(loss_fn))
    name = _LOSSES.get(key) or (key if key in _LOSSES.values() else None)
    if name is None:
        raise ProbeError(f"the probes know the cross-entropy, NLL, MSE and BCE-with-logits losses, not {key!r}; "
                         "pass one of them (or its name, e.g. 'cross_entropy') for the probe run")
    return name


def _rng_state(torch):
    state = {"cpu": torch.get_rng_state()}
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def _set_rng_state(torch, state):
    torch.set_rng_state(state["cpu"])
    if "cuda" in state:
        torch.cuda.set_rng_state_all(state["cuda"])


def export(model, batch):
    """A TorchScript copy of model (scripted, else traced on batch) and how it was made. The model
    and the RNG state are left as they were."""
    import torch
    rng = _rng_state(torch)
    try:
        twin = copy.deepcopy(model)
        errors = []
        try:
            return torch.jit.script(twin), "script"
        except Exception as exc:  # scripting fails on much ordinary Python; tracing is the fallback
            errors.append(f"script: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
        try:
            with torch.no_grad():
                return torch.jit.trace(twin, batch, check_trace=False), "trace"
        except Exception as exc:
            errors.append(f"trace: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
        raise ProbeError("the model cannot be exported to TorchScript for the probes (" + "; ".join(errors) + ")")
    finally:
        _set_rng_state(torch, rng)


def check(model, batch, targets=None, loss_fn="cross_entropy", optimizer=None, log=None, probes=None,
          budget=30.0, rules=None):
    """Runs the live probes on model with one batch and returns a Report whose hypotheses carry the
    probes' verdicts (status confirmed / refuted, evidence text).

    log: a log, its path, or a Report (e.g. from diagnose_exception): the probes then test that
    report's hypotheses. Without it every probe runs (a check-up) and what they find becomes the report.
    probes: names of probes to run (see `triage-probe --list`) instead of choosing them from the report.
    Raises ProbeError when the probes cannot run (the reason says what to change).
    """
    import torch
    if not isinstance(batch, torch.Tensor) or (targets is not None and not isinstance(targets, torch.Tensor)):
        raise ProbeError("check() takes the batch and the targets as single tensors")
    command = probe_command()
    if not command:
        raise ProbeError("triage-probe was not found: build the project (it is built with the Python module) "
                         "or set TRIAGE_PROBE to its path")
    name = loss_name(loss_fn)
    scripted, how = export(model, batch)
    with tempfile.TemporaryDirectory(prefix="triage-check-") as tmp:
        paths = {k: os.path.join(tmp, k + ".pt") for k in ("model", "inputs", "targets")}
        torch.jit.save(scripted, paths["model"])
        torch.save(batch.detach().cpu(), paths["inputs"])
        args = [command, "--model", paths["model"], "--inputs", paths["inputs"], "--loss", name,
                "--budget", str(float(budget)), "--evidence", os.path.join(tmp, "evidence.json")]
        if targets is not None:
            torch.save(targets.detach().cpu(), paths["targets"])
            args += ["--targets", paths["targets"]]
        if optimizer is not None:
            args += ["--optimizer", "sgd" if isinstance(optimizer, torch.optim.SGD) else "adam",
                     "--lr", repr(float(optimizer.param_groups[0]["lr"]))]
        if not model.training:
            args.append("--eval")
        report_text, found_live = None, []
        if isinstance(log, Report):
            report_text, found_live = log.log_text, list(log.findings)
        elif log is not None:
            report_text, _ = _api._as_bytes(log)
        if report_text:
            with open(os.path.join(tmp, "error.log"), "wb") as f:
                f.write(report_text)
            args += ["--log", os.path.join(tmp, "error.log")]
        for p in probes or ():
            args += ["--probe", p]
        done = subprocess.run(args, capture_output=True, timeout=float(budget) + 120)
        if done.returncode not in (0, 1):
            raise ProbeError("triage-probe failed: " + done.stderr.decode("utf-8", "replace").strip()[-2000:])
        with open(os.path.join(tmp, "evidence.json"), encoding="utf-8") as f:
            evidence = json.load(f)
    native = _triage.diagnose(_api._rules(rules), report_text or b"", source="check")
    for e in evidence:
        e["facts"] = [tuple(f) for f in e.get("facts", [])]
    native = _triage.apply_evidence(native, found_live + evidence)
    report = Report(native, text=report_text, findings=found_live)
    report.probes = evidence
    report.exported = how
    return report
