"""triage.check: the C++ probes on a Python model (through TorchScript and triage-probe), and the
promise that the caller's model, optimizer and RNG are exactly as they were (hashed before and after)."""
import hashlib
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
