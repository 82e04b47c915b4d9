"""Entry points over the engine: diagnose text, files and live exceptions; the excepthook."""
import os
import sys
import threading
import traceback

from . import _live, _triage
from ._report import Problem, Report


class RulesError(ValueError):
    """Raised when rules cannot be used: carries every problem the loader reported (`problems`)."""

    def __init__(self, problems):
        self.problems = problems
        super().__init__("rule problems:\n" + "\n".join(str(p) for p in problems))


_default = None
_default_lock = threading.Lock()


def load_rules(dirs=(), bundled=True, strict=False, env=True, project=True):
    """Loads the bundled rules plus `dirs` (directories or files), like `triage --rules DIR`.

    Returns an opaque rule set to pass as `rules=`. Raises RulesError when a rule file has errors
    (with strict=True, warnings too): each problem names its file:line:column.
    """
    if isinstance(dirs, (str, os.PathLike)):
        dirs = [dirs]
    native = _triage.load_rules([os.fspath(d) for d in dirs], bundled=bundled, strict=strict, env_path=env,
                                project=project)
    problems = [Problem(**{k: v for k, v in p.items()}) for p in native.problems]
    bad = [p for p in problems if p.severity == "error" or (strict and p.severity == "warning")]
    if bad:
        raise RulesError(bad)
    return native


def _rules(rules):
    global _default
    if rules is None:
        with _default_lock:
            if _default is None:
                _default = load_rules()
            return _default
    if isinstance(rules, _triage.Rules):
        return rules
    return load_rules(rules)


def _as_bytes(what):
    """A path, log text (str or bytes), or an iterable of lines -> (bytes, source name)."""
    if isinstance(what, bytes):
        return what, "-"
    if isinstance(what, os.PathLike) or (isinstance(what, str) and "\n" not in what and os.path.isfile(what)):
        path = os.fspath(what)
        with open(path, "rb") as f:
            return f.read(), path
    if isinstance(what, str):
        return what.encode("utf-8", "surrogateescape"), "-"
    try:
        lines = iter(what)
    except TypeError:
        raise TypeError(f"diagnose() takes a path, text, bytes or an iterable of lines, not {type(what).__name__}")
    parts = []
    for line in lines:
        if isinstance(line, bytes):
            line = line.decode("utf-8", "surrogateescape")
        parts.append(line if line.endswith("\n") else line + "\n")
    return "".join(parts).encode("utf-8", "surrogateescape"), "-"


def diagnose(what, rules=None, top=0, min_confidence=None, source=None, audience="python"):
    """Diagnoses a log: a path, its text (str or bytes), or an iterable of lines.

    rules: None (bundled + the usual search path), a directory, a list of them, or load_rules()'s result.
    top: keep at most this many diagnoses (0: all). Returns a Report (empty `diagnoses`: nothing found).
    audience: who reads the checks and fixes: "python" (a Python training script), "cpp" (a LibTorch
    C++ program: the rules' C++ advice, Python commands left out) or "auto" (the program the input
    shows). Anything else raises ValueError.
    """
    if not isinstance(audience, str):
        raise TypeError(f"audience must be 'python', 'cpp' or 'auto', not {type(audience).__name__}")
    data, name = _as_bytes(what)
    kwargs = {"top": int(top), "source": source or name, "audience": audience}
    if min_confidence is not None:
        kwargs["min_confidence"] = float(min_confidence)
    return Report(_triage.diagnose(_rules(rules), data, **kwargs), text=data)


def diagnose_exception(exc=None, rules=None, top=0):
    """Diagnoses a live exception (default: the one being handled): its chain and frames, read as the
    traceback Python prints, plus what no log has: the tensors and modules in the failing frames. Those
    are compared (shapes, channels, dtypes, devices, index and class ranges; nothing is run) and what
    they confirm marks the hypotheses it settles, as a probe's verdict would (Report.live lists them)."""
    if exc is None:
        exc = sys.exc_info()[1]
        if exc is None:
            raise ValueError("diagnose_exception() needs an exception (none is being handled)")
    if not isinstance(exc, BaseException):
        raise TypeError(f"diagnose_exception() takes an exception, not {type(exc).__name__}")
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    data, _ = _as_bytes(text)
    native = _triage.diagnose(_rules(rules), data, top=int(top), source="exception")
    live = _live.frames(exc)
    found = _live.evidence(live)
    if found:
        native = _triage.apply_evidence(native, found)
    return Report(native, live=_live.describe_frames(live), findings=found, text=data)


# --- excepthook -------------------------------------------------------------------------------

_saved = {}


def _report_uncaught(exc, stream):
    try:
        report = diagnose_exception(exc)
        if report.diagnoses:
            color = hasattr(stream, "isatty") and stream.isatty() and not os.environ.get("NO_COLOR")
            stream.write("\n" + "=" * 20 + " triage " + "=" * 20 + "\n")
            stream.write(report.to_text(color=color))
            stream.flush()
    except Exception as inner:  # the hook must never raise: say so and go on
        try:
            stream.write(f"triage: could not diagnose the exception ({type(inner).__name__}: {inner})\n")
        except Exception:
            pass


def install(stream=None):
    """Diagnoses every uncaught exception (sys.excepthook and threading.excepthook) after the usual
    traceback is printed. The original traceback is never hidden, the hook never raises, and the
    program's exit status does not change. `uninstall()` restores the previous hooks."""
    if _saved:
        return
    _saved["sys"] = sys.excepthook
    _saved["threading"] = threading.excepthook

    def hook(etype, value, tb):
        _saved["sys"](etype, value, tb)
        if value is not None and not isinstance(value, KeyboardInterrupt):
            if value.__traceback__ is None:
                value = value.with_traceback(tb)
            _report_uncaught(value, stream or sys.stderr)

    def thread_hook(args):
        _saved["threading"](args)
        if args.exc_value is not None and not issubclass(args.exc_type, SystemExit):
            _report_uncaught(args.exc_value, stream or sys.stderr)

    sys.excepthook = hook
    threading.excepthook = thread_hook


def uninstall():
    """Restores the hooks install() replaced."""
    if _saved:
        sys.excepthook = _saved.pop("sys")
        threading.excepthook = _saved.pop("threading")


def version():
    """The engine's version, 'MAJOR.MINOR.PATCH'."""
    return _triage.version()
