"""python3 -m triage SCRIPT [ARGS...]   run a script; diagnose an uncaught exception with its live frames
python3 -m triage -m MODULE [ARGS...]  the same for a module (like python3 -m MODULE)
python3 -m triage --log FILE [FILE...] diagnose log files (the `triage` command does more: see its --help)

The script runs as __main__ with sys.argv set as Python would set it. An uncaught exception prints the
usual traceback, then the diagnosis; the exit status is what Python's would be (1, or SystemExit's code).
"""
import os
import runpy
import sys
import traceback

from . import _api


def _trim(tb, filename):
    """Drops the frames of runpy and of this module above the user's code, as `python3 SCRIPT` shows."""
    keep = tb
    while keep is not None and os.path.abspath(keep.tb_frame.f_code.co_filename) != filename:
        keep = keep.tb_next
    return keep or tb


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    if argv[0] == "--log":
        status = 1
        for path in argv[1:]:
            report = _api.diagnose(path)
            sys.stdout.write(report.to_text(color=sys.stdout.isatty() and not os.environ.get("NO_COLOR")))
            status = 0 if report.diagnoses else status
        return status
    if argv[0] == "-m":
        if len(argv) < 2:
            print("python3 -m triage -m MODULE [ARGS...]: name a module", file=sys.stderr)
            return 2
        target, run = argv[1], lambda: runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        sys.argv = argv[1:]
        filename = None
    else:
        target = argv[0]
        if not os.path.exists(target):
            print(f"python3 -m triage: can't open file {target!r}: no such file", file=sys.stderr)
            return 2
        filename = os.path.abspath(target)
        sys.argv = argv
        sys.path.insert(0, os.path.dirname(filename))
        run = lambda: runpy.run_path(target, run_name="__main__")
    try:
        run()
    except SystemExit:
        raise
    except KeyboardInterrupt:
        traceback.print_exc()
        return 130
    except BaseException as exc:  # noqa: B902 - the point is to see every uncaught exception
        tb = _trim(exc.__traceback__, filename) if filename else exc.__traceback__
        exc = exc.with_traceback(tb)
        traceback.print_exception(type(exc), exc, tb)
        sys.stderr.flush()
        _api._report_uncaught(exc, sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
