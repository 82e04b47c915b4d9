"""`python3 -m triage`, triage.install() and their promises: the original traceback is printed, the
diagnosis follows it, the hook never raises, and the exit status is Python's own."""
import textwrap

from conftest import run_python

SEPARATOR = "=" * 20 + " triage " + "=" * 20


def test_m_triage_runs_a_script_and_diagnoses_its_uncaught_exception(program):
    done = run_python(["-m", "triage", program("linear_flatten.py")])
    assert done.returncode == 1
    traceback_at = done.stderr.index("Traceback (most recent call last):")
    error_at = done.stderr.index("RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x10)")
    diagnosis_at = done.stderr.index(SEPARATOR)
    assert traceback_at < error_at < diagnosis_at
    report = done.stderr[diagnosis_at:]
    assert "shape.matmul_mismatch" in report and "[confirmed]" in report
    assert "Linear expects 64 input features; input has shape (4, 57600)" in report
    # The frames of runpy and of triage itself are not shown above the user's code.
    assert "runpy" not in done.stderr.split(SEPARATOR)[0]


def test_m_triage_keeps_argv_and_exit_status(program):
    done = run_python(["-m", "triage", program("exits_with_3.py"), "--epochs", "2"])
    assert done.returncode == 3
    assert "argv: ['--epochs', '2']" in done.stdout
    assert SEPARATOR not in done.stderr


def test_m_triage_on_a_clean_script_prints_nothing_extra(tmp_path):
    script = tmp_path / "ok.py"
    script.write_text("print('trained')\n")
    done = run_python(["-m", "triage", str(script)])
    assert done.returncode == 0 and done.stdout == "trained\n" and done.stderr == ""


def test_m_triage_says_what_is_wrong_with_its_arguments(tmp_path):
    done = run_python(["-m", "triage", str(tmp_path / "missing.py")])
    assert done.returncode == 2 and "can't open file" in done.stderr
    done = run_python(["-m", "triage"])
    assert done.returncode == 2 and "python3 -m triage SCRIPT" in done.stdout


def test_install_diagnoses_main_and_worker_threads(program):
    done = run_python([program("thread_failure.py")])
    assert done.returncode == 1  # what Python returns for an uncaught exception, unchanged
    assert "main thread goes on" in done.stdout
    assert done.stderr.count(SEPARATOR) == 2
    assert done.stderr.count("Traceback (most recent call last):") == 2
    worker, main = done.stderr.split(SEPARATOR)[1:]
    assert "Exception in thread" in done.stderr.split(SEPARATOR)[0]
    assert "shape.matmul_mismatch" in worker and "shape.matmul_mismatch" in main
    assert "(2x32 and 64x10)" in worker and "(4x128 and 64x10)" in main


def test_a_failing_diagnosis_never_hides_the_error_or_raises(tmp_path):
    script = tmp_path / "broken_hook.py"
    script.write_text(textwrap.dedent("""
        import triage, triage._api
        def explode(*args, **kwargs):
            raise MemoryError("engine unavailable")
        triage._api.diagnose_exception = explode
        triage.install()
        raise KeyError("the user's own error")
    """))
    done = run_python([str(script)])
    assert done.returncode == 1
    assert "KeyError: \"the user's own error\"" in done.stderr
    assert "triage: could not diagnose the exception (MemoryError: engine unavailable)" in done.stderr


def test_uninstall_restores_the_hooks():
    done = run_python(["-c", textwrap.dedent("""
        import sys, threading, triage
        before = (sys.excepthook, threading.excepthook)
        triage.install(); triage.install()
        assert sys.excepthook is not before[0]
        triage.uninstall()
        assert (sys.excepthook, threading.excepthook) == before
        print("restored")
    """)])
    assert done.returncode == 0 and done.stdout.strip() == "restored", done.stderr
