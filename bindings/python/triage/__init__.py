"""triage: diagnose PyTorch failures from logs, exceptions and live models.

    import triage
    report = triage.diagnose("train.log")          # a path, the log text, bytes, or an iterable of lines
    print(report)                                  # the same report as the `triage` command prints
    report.diagnoses[0].category                   # 'shape.matmul_mismatch'
    report.to_json()                               # the command's JSON output contract, byte for byte

    try:
        train_step(model, batch)
    except Exception as exc:
        print(triage.diagnose_exception(exc))      # the chain, the frames, and the tensors in them

    triage.install()                               # diagnose every uncaught exception (sys.excepthook)

From a shell: `python3 -m triage train.py ARGS` runs a script and diagnoses an uncaught exception; in
IPython or Jupyter: `%load_ext triage`. Importing this package never loads LibTorch; live probes
(`triage.check`) load it when called. The guide is bindings/python/README.md.
"""
from ._report import Report, Diagnosis, Hypothesis, Incident, Series, LayerSeries, LayerValue, Problem
from ._api import (RulesError, diagnose, diagnose_exception, install, uninstall, load_rules, version)
from ._monitor import Monitor
from . import callbacks
from . import _triage

try:  # installed by `cmake --install`: the prefix's rules are the bundled ones
    from ._paths import RULES as _RULES
    _triage.note_installed_rules_dir(_RULES)
except ImportError:
    pass

__all__ = ["Report", "Diagnosis", "Hypothesis", "Incident", "Series", "LayerSeries", "LayerValue", "Problem", "RulesError", "diagnose",
           "diagnose_exception", "install", "uninstall", "load_rules", "version", "Monitor", "check", "callbacks"]


def check(*args, **kwargs):
    """Runs the live probes on a model (see triage.probes.check); loads LibTorch on first use."""
    from .probes import check as _check
    return _check(*args, **kwargs)


def load_ipython_extension(ipython):
    """`%load_ext triage`: diagnose the exception of a failing cell under its traceback."""
    from .ipython import load_ipython_extension as _load
    _load(ipython)


def unload_ipython_extension(ipython):
    from .ipython import unload_ipython_extension as _unload
    _unload(ipython)
