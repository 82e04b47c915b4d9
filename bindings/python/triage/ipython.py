"""`%load_ext triage` in IPython and Jupyter: a failing cell shows its usual traceback, then the diagnosis
(HTML in a notebook, text in a terminal). `%unload_ext triage` restores IPython's own handling."""
from . import _api


def _handler(shell, etype, value, tb, tb_offset=None):
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset)  # the original traceback, unchanged
    try:
        if value.__traceback__ is None:
            value = value.with_traceback(tb)
        report = _api.diagnose_exception(value)
        if report.diagnoses:
            from IPython.display import display
            display(report)  # text/plain and text/html (Report._repr_html_)
    except Exception as inner:  # never let the extension hide or replace the user's error
        print(f"triage: could not diagnose the exception ({type(inner).__name__}: {inner})")
    return None


def load_ipython_extension(ipython):
    ipython.set_custom_exc((Exception,), _handler)


def unload_ipython_extension(ipython):
    ipython.set_custom_exc((), None)
