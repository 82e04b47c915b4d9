"""triage.diagnose on logs: the same engine and the same JSON as the `triage` command."""
import json
import os
import subprocess
import sys

import pytest
import triage
from conftest import CLI, SOURCE_DIR, run_python

CASE = os.path.join(SOURCE_DIR, "corpus", "shape", "linear-flattened-conv", "log.txt")


def cli_json(path):
    done = subprocess.run([CLI, "--format", "json", path], capture_output=True)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout.decode()


def test_to_json_is_the_commands_json():
    report = triage.diagnose(CASE)
    assert report.to_json() == cli_json(CASE)
    assert report.top.category == "shape.matmul_mismatch"
    assert report.source == CASE


def test_path_text_bytes_and_lines_give_one_report():
    with open(CASE, "rb") as f:
        data = f.read()
    expected = json.loads(triage.diagnose(CASE).to_json())["diagnoses"]
    for what in (data, data.decode(), data.decode().splitlines(), iter(data.splitlines(keepends=True))):
        assert json.loads(triage.diagnose(what).to_json())["diagnoses"] == expected


def test_plain_objects_carry_the_contract():
    d = triage.diagnose(CASE).top
    assert isinstance(d.confidence, float) and 0 < d.confidence <= 1
    assert d.hypotheses and all(h.status == "untested" for h in d.hypotheses)
    assert any(h.probe == "shape-trace" for h in d.hypotheses)
    assert d.rule and d.title and d.explanation and d.verify


def test_audience_cpp_is_the_commands_cpp_report():
    python = triage.diagnose(CASE)
    cpp = triage.diagnose(CASE, audience="cpp")
    assert python.audience == "python" and cpp.audience == "cpp"
    done = subprocess.run([CLI, "--format", "json", "--audience", "cpp", CASE], capture_output=True)
    assert done.returncode in (0, 1), done.stderr
    assert cpp.to_json() == done.stdout.decode()
    # The same diagnoses, in the same order, with the same confidence; only the advice changes.
    assert [(d.rule, d.confidence) for d in cpp.diagnoses] == [(d.rule, d.confidence) for d in python.diagnoses]
    top = cpp.top
    assert all("--include=*.py" not in c and "python -c" not in c for c in top.checks)
    fixes = " ".join(h.fix for h in top.hypotheses)
    assert "torch::nn::" in fixes and "(written for Python)" not in fixes
    assert fixes != " ".join(h.fix for h in python.top.hypotheses)
    text = cpp.to_text()
    assert "triage::probes::RunProbe" in text and "triage.check(" not in text


def test_audience_must_be_python_or_cpp():
    with pytest.raises(ValueError, match="audience"):
        triage.diagnose(CASE, audience="c++")
    with pytest.raises(TypeError, match="audience"):
        triage.diagnose(CASE, audience=None)


def test_series_come_from_metric_lines():
    lines = [f"step={i} loss={2.0 - i * 0.01}" for i in range(1, 40)] + ["step=40 loss=nan"]
    report = triage.diagnose(lines)
    assert report.top.category == "numerics.nan_loss"
    loss = [s for s in report.top.series if s.name == "loss"]
    assert loss and loss[0].onset == 40.0 and len(loss[0].points) >= 8


def test_top_and_clean_logs():
    assert len(triage.diagnose(CASE, top=1).diagnoses) == 1
    assert not triage.diagnose("epoch 1 done\nepoch 2 done\n")


def test_malformed_rules_raise_with_file_line_column(tmp_path):
    (tmp_path / "bad.yaml").write_text("id: bad-rule\ncategory: shape.not_a_category\nmatch: [\n")
    with pytest.raises(triage.RulesError) as info:
        triage.load_rules(str(tmp_path))
    text = str(info.value)
    assert "bad.yaml:" in text and info.value.problems
    p = info.value.problems[0]
    assert p.file.endswith("bad.yaml") and p.line >= 1 and p.column >= 1


def test_extra_rules_are_used(tmp_path):
    (tmp_path / "data-server-gone.yaml").write_text(
        "id: data-server-gone\ncategory: data.worker_died\ntitle: Our data server went away\nconfidence: 0.9\n"
        "match:\n  message:\n    - 'shard (?P<shard>\\d+) is gone'\n"
        "explain: Our data server dropped shard {shard}.\n"
        "hypotheses:\n  - id: server-restarted\n    text: The data server restarted.\n"
        "    test: curl the server\n    fix: Restart it.\n"
        "verify: The loader reads every shard.\n"
        "examples:\n  - match: 'DataServerGone: shard 7 is gone'\n    captures: { shard: 7 }\n")
    rules = triage.load_rules(str(tmp_path))
    report = triage.diagnose("Traceback (most recent call last):\n  File \"t.py\", line 1, in <module>\n"
                             "DataServerGone: shard 7 is gone\n", rules=rules)
    assert report.top is not None and report.top.rule == "data-server-gone", report.to_text()


def test_wrong_argument_types_raise_type_error():
    with pytest.raises(TypeError):
        triage.diagnose(12345)


def test_import_does_not_load_torch_and_version_matches_the_command():
    done = run_python(["-c", "import sys, triage; print('torch' in sys.modules, triage.version())"])
    assert done.returncode == 0, done.stderr
    loaded, version = done.stdout.split()
    assert loaded == "False"
    cli = subprocess.run([CLI, "--version"], capture_output=True, text=True).stdout
    assert version in cli


def test_hostile_bytes_do_not_crash():
    junk = bytes(range(256)) * 4000 + b"\x00" * 100000 + b"RuntimeError: \xff\xfe" * 1000
    report = triage.diagnose(junk)
    json.loads(report.to_json())
    assert isinstance(report.to_text(), str)
