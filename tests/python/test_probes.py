"""triage.check: the C++ probes on a Python model (through TorchScript and triage-probe), and the
promise that the caller's model, optimizer and RNG are exactly as they were (hashed before and after)."""
import hashlib
import html
import importlib.util

import pytest
import torch
import torch.nn as nn
import triage
from triage.probes import ProbeError


def state_hash(model, optimizer=None):
    """Parameters, gradients, buffers, requires_grad flags, train/eval flags, the CPU RNG state and the
    optimizer's state, in one digest."""
    h = hashlib.sha256()

    def tensor(t):
        h.update(b"none" if t is None else t.detach().cpu().contiguous().numpy().tobytes() + str(t.dtype).encode())

    for name, p in model.named_parameters():
        h.update(name.encode() + str(p.requires_grad).encode())
        tensor(p)
        tensor(p.grad)
    for name, b in model.named_buffers():
        h.update(name.encode())
        tensor(b)
    for name, m in model.named_modules():
        h.update(f"{name}:{m.training}".encode())
    tensor(torch.get_rng_state())
    if optimizer is not None:
        state = optimizer.state_dict()
        for key in sorted(state["state"]):
            for k, v in sorted(state["state"][key].items()):
                h.update(k.encode())
                tensor(v) if torch.is_tensor(v) else h.update(repr(v).encode())
        h.update(repr(state["param_groups"]).encode())
    return h.hexdigest()


class Untraceable(nn.Module):
    """Python the scripter rejects (a **kwargs call), so check() falls back to tracing; dropout and
    batch norm would change the RNG and the running statistics if the caller's model ran."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(12, 24), nn.BatchNorm1d(24), nn.ReLU(), nn.Dropout(0.3))
        self.head = nn.Linear(24, 4)

    def forward(self, x, **unused):
        return self.head(self.body(x))


def trained_a_little(model, x, y, optimizer):
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()  # leave gradients in place: they must survive check() too


@pytest.mark.parametrize("exported", ["script", "trace"])
def test_model_optimizer_and_rng_are_left_exactly_as_found(exported):
    torch.manual_seed(1)
    if exported == "script":
        model = nn.Sequential(nn.Linear(12, 24), nn.BatchNorm1d(24), nn.ReLU(), nn.Dropout(0.3), nn.Linear(24, 4))
    else:
        model = Untraceable()
    x, y = torch.randn(16, 12), torch.randint(0, 4, (16,))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    trained_a_little(model, x, y, optimizer)
    model[3].eval() if exported == "script" else model.body[3].eval()  # a mixed train/eval state
    model[0].bias.requires_grad_(False) if exported == "script" else model.head.bias.requires_grad_(False)
    before = state_hash(model, optimizer)
    report = triage.check(model, x, y, nn.CrossEntropyLoss(), optimizer=optimizer, budget=20)
    assert report.exported == exported
    assert state_hash(model, optimizer) == before
    ran = {p["probe"]: p["verdict"] for p in report.probes}
    assert {"shape-trace", "grad-health", "weight-update", "nan-source"} <= set(ran)
    assert all(v in ("confirmed", "refuted", "inconclusive") for v in ran.values())


def test_a_checkup_finds_softmax_before_cross_entropy():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 5), nn.Softmax(dim=1))
    x, y = torch.randn(16, 20), torch.randint(0, 5, (16,))
    report = triage.check(model, x, y, nn.CrossEntropyLoss(), budget=20)
    assert report.top is not None and report.top.category == "training.softmax_before_loss", report.to_text()
    assert report.top.hypotheses[0].status == "confirmed"


def test_probes_test_the_hypotheses_of_a_live_exception():
    spec = importlib.util.spec_from_file_location("prog", __file__.replace("test_probes.py", "programs/linear_flatten.py"))
    prog = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(prog)
    model, x, y = prog.Net(), torch.randn(4, 3, 62, 62), torch.randint(0, 10, (4,))
    try:
        model(x)
    except RuntimeError as exc:
        diagnosis = triage.diagnose_exception(exc)
    before = state_hash(model)
    report = triage.check(model, x, y, nn.CrossEntropyLoss(), log=diagnosis, budget=20)
    assert state_hash(model) == before
    assert report.top.category == "shape.matmul_mismatch"
    shape = [p for p in report.probes if p["probe"] == "shape-trace"]
    assert shape and shape[0]["verdict"] == "confirmed", report.probes
    assert any(h.status == "confirmed" for h in report.top.hypotheses)


def test_what_cannot_be_probed_says_why():
    model = nn.Linear(4, 2)
    x = torch.randn(3, 4)
    with pytest.raises(ProbeError, match="cross-entropy, NLL, MSE and BCE-with-logits"):
        triage.check(model, x, torch.zeros(3, dtype=torch.long), loss_fn=nn.SmoothL1Loss())
    with pytest.raises(ProbeError, match="single tensors"):
        triage.check(model, [x], None)

    class ReturnsText(nn.Module):
        def forward(self, x, **unused):  # **kwargs: not scriptable; a str output: not traceable
            return f"sum={float(x.sum()):.3f}"

    with pytest.raises(ProbeError, match="cannot be exported to TorchScript.*script: .*trace: "):
        triage.check(ReturnsText(), x, None, loss_fn="mse")


# ---- the zoo on Python models: one planted problem per case, and healthy controls ----------------

class GruNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(20, 32, batch_first=True)
        self.fc = nn.Linear(32, 8)

    def forward(self, x):
        out, _ = self.gru(x)
        return self.fc(out[:, -1])


class BlockNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(20, 32)
        self.block = nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, batch_first=True)
        self.fc = nn.Linear(32, 8)

    def forward(self, x):
        return self.fc(self.block(self.embed(x)).mean(1))


def mlp(*tail, outputs=8, norm=False):
    body = [nn.Linear(20, 32)] + ([nn.BatchNorm1d(32)] if norm else []) + [nn.ReLU(), nn.Linear(32, outputs)]
    return nn.Sequential(*body, *tail)


def labels(n=64):
    return torch.randint(0, 8, (n,))


# name, planted problem, expected first category, builder of (model, batch, targets, loss)
ZOO = [
    ("sigmoid-before-cross-entropy", "8-way head ending in Sigmoid, into CrossEntropyLoss", "training.softmax_before_loss",
     lambda: (mlp(nn.Sigmoid()), torch.randn(64, 20), labels(), nn.CrossEntropyLoss())),
    ("softmax-before-nll", "Softmax output into NLLLoss", "training.softmax_before_loss",
     lambda: (mlp(nn.Softmax(dim=1)), torch.randn(64, 20), labels(), nn.NLLLoss())),
    ("regression-target-broadcast", "[64, 1] prediction vs [64] target in MSELoss", "shape.loss_input_target",
     lambda: (mlp(outputs=1), torch.randn(64, 20), torch.randn(64), nn.MSELoss())),
    ("batchnorm-batch-of-one", "BatchNorm1d after Linear, a batch of one sample", "shape.batchnorm_single_sample",
     lambda: (mlp(norm=True), torch.randn(1, 20), labels(1), nn.CrossEntropyLoss())),
    ("float-class-targets", "class labels as float32 for CrossEntropyLoss", "dtype.integer_expected",
     lambda: (mlp(), torch.randn(64, 20), labels().float(), nn.CrossEntropyLoss())),
    ("negative-labels", "labels shifted to -1..6", "loss.target_out_of_range",
     lambda: (mlp(), torch.randn(64, 20), labels() - 1, nn.CrossEntropyLoss())),
    ("clean-mlp", "none", "none", lambda: (mlp(), torch.randn(64, 20), labels(), nn.CrossEntropyLoss())),
    ("clean-bn-cnn", "none", "none",
     lambda: (nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                            nn.Flatten(), nn.Linear(8, 8)), torch.randn(16, 3, 12, 12), labels(16), nn.CrossEntropyLoss())),
    ("clean-gru", "none", "none", lambda: (GruNet(), torch.randn(32, 6, 20), labels(32), nn.CrossEntropyLoss())),
    ("clean-transformer-block", "none", "none",
     lambda: (BlockNet(), torch.randn(32, 6, 20), labels(32), nn.CrossEntropyLoss())),
    ("clean-regression", "none", "none", lambda: (mlp(outputs=1), torch.randn(64, 20), torch.randn(64, 1), nn.MSELoss())),
    ("clean-log-softmax-nll", "none", "none",
     lambda: (mlp(nn.LogSoftmax(dim=1)), torch.randn(64, 20), labels(), nn.NLLLoss())),
]


@pytest.mark.parametrize("name,planted,expected,build", ZOO, ids=[case[0] for case in ZOO])
def test_zoo_names_the_planted_problem_first(name, planted, expected, build):
    torch.manual_seed(0)
    model, x, y, loss_fn = build()
    before = state_hash(model)
    report = triage.check(model, x, y, loss_fn, budget=20)
    assert state_hash(model) == before
    got = report.top.category if report.top else "none"
    confirmed = [h for h in report.top.hypotheses if h.status == "confirmed" and h.probe] if report.top else []
    by = ", ".join(f"{h.probe} ({h.id})" for h in confirmed) or "-"
    # The closing table is built from these lines (pytest -s).
    print(f"PYZOO | {name} | {planted} | {expected} | {got} | {by} | exported by {report.exported}")
    assert got == expected, report.to_text()
    if expected != "none":
        assert confirmed, report.to_text()


def test_the_html_report_draws_the_probes_per_layer_measurements(tmp_path):
    # Most of fc1's units dead (a bias of -20) and fc2 scaled up a thousandfold (fc1's gradient explodes):
    # the per-layer values travel from triage-probe's evidence into the report and its HTML bar charts.
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 10))
    with torch.no_grad():
        model[0].bias[:48] = -20.0
        model[2].weight.mul_(1000.0)
    x = torch.randn(64, 20)
    y = (x @ torch.randn(20, 10)).argmax(1)
    report = triage.check(model, x, y, nn.CrossEntropyLoss(), budget=20)
    series = {(s.probe, s.name): s for d in report.diagnoses for s in d.layer_series}
    assert ("dead-activations", "dead_fraction") in series, report.to_text()
    dead = series[("dead-activations", "dead_fraction")]
    assert dead.above == 0.5 and dead.scale == "linear"
    assert [(v.layer, v.value, v.offending) for v in dead.layers] == [("relu after 0", 0.75, True)]
    norms = series[("grad-health", "grad_norm")]
    assert norms.scale == "log" and norms.above == 100
    flagged = {v.layer for v in norms.layers if v.offending}
    assert "0.weight" in flagged, norms
    page = report.to_html()
    assert page.startswith("<!DOCTYPE html>\n")
    assert page.count('<svg class="layers"') >= 2, page
    assert ">relu after 0 (flagged)</text>" in page
    (tmp_path / "report.html").write_text(page, encoding="utf-8")
    assert "layer_series" in report.to_json()
    # In a notebook: the text, then the page with its plots in a sandboxed frame.
    shown = report._repr_html_()
    assert shown.startswith('<pre class="triage-report">')
    frame = shown[shown.index("</pre>") + len("</pre>"):]
    assert frame.startswith('<iframe class="triage-report" sandbox ') and frame.endswith("</iframe>")
    srcdoc = frame[frame.index('srcdoc="') + len('srcdoc="'):-len('"></iframe>')]
    assert '"' not in srcdoc and html.unescape(srcdoc) == page
