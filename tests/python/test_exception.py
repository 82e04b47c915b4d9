"""triage.diagnose_exception on real PyTorch exceptions from broken programs (tests/python/programs)."""
import importlib.util
import json

import pytest
import triage


def raise_from(path):
    spec = importlib.util.spec_from_file_location("prog", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(Exception) as info:
        module.main()
    return info.value


def confirmed(report):
    return [(d.category, h.id, h.evidence) for d in report.diagnoses for h in d.hypotheses if h.status == "confirmed"]


@pytest.mark.parametrize("name, category, live_text", [
    ("linear_flatten.py", "shape.matmul_mismatch", "Linear expects 64 input features; input has shape (4, 57600)"),
    ("gray_images.py", "shape.channel_mismatch", "Conv2d expects 3 channels; input has 1"),
    ("vocab_too_small.py", "index.out_of_range", "Embedding has 100 rows; input holds indices 3..250"),
    ("labels_one_based.py", "loss.target_out_of_range", "the scores have 10 classes; target holds 3..10"),
    ("double_input.py", "dtype.mismatch", "Linear weight is torch.float32 but input is torch.float64"),
])
def test_live_frames_confirm_the_diagnosis(program, name, category, live_text):
    exc = raise_from(program(name))
    report = triage.diagnose_exception(exc)
    assert report.top is not None, report.to_text()
    assert report.top.category == category, report.to_text()
    # The live tensors are evidence: a hypothesis of the top diagnosis is confirmed by what they show.
    found = [e for c, _, e in confirmed(report) if c == category]
    assert found and live_text in found[0], report.to_text()
    assert any(live_text in f["summary"] for f in report.findings)
    # ... and they are listed in the text and in the JSON (after the contract's own members).
    assert "Tensors in the failing frames" in report.to_text()
    data = json.loads(report.to_json())
    assert data["diagnoses"][0]["category"] == category
    assert data["live"] and all("where" in f and "tensors" in f for f in data["live"])


def test_shapes_of_the_failing_linear_are_listed(program):
    report = triage.diagnose_exception(raise_from(program("linear_flatten.py")))
    innermost = report.live[-1]
    assert innermost["where"].endswith("in forward")
    assert innermost["tensors"]["input"].startswith("Tensor(4, 57600) float32 cpu")
    assert innermost["tensors"]["self"] == "Linear(in_features=64, out_features=10, bias=True)"


def test_the_exception_being_handled_is_the_default():
    try:
        raise RuntimeError("Given groups=1, weight of size [8, 3, 3, 3], expected input[2, 1, 28, 28] to have "
                           "3 channels, but got 1 channels instead")
    except RuntimeError:
        report = triage.diagnose_exception()
    assert report.top.category == "shape.channel_mismatch"
    assert report.findings == []  # no tensors in this frame: nothing live to confirm with


def test_a_chained_exception_is_read_whole(program):
    try:
        try:
            raise raise_from(program("vocab_too_small.py"))
        except IndexError as inner:
            raise ValueError("batch 12 failed") from inner
    except ValueError as outer:
        report = triage.diagnose_exception(outer)
    assert report.top.category == "index.out_of_range"


def test_bad_arguments_raise_python_errors():
    with pytest.raises(ValueError, match="needs an exception"):
        triage.diagnose_exception()
    with pytest.raises(TypeError, match="takes an exception"):
        triage.diagnose_exception("not an exception")


def test_no_pytorch_failure_gives_an_empty_report():
    try:
        {}["missing"]
    except KeyError as exc:
        report = triage.diagnose_exception(exc)
    assert not report and report.top is None
