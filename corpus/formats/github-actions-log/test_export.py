# A CI test step that exports a model; make.sh runs it as a GitHub Actions step's raw log shows it.
import torch
import torch.nn as nn


def test_export_roundtrip():
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU())
    state = model.state_dict()
    state["0.weight"] = torch.randn(8, 4)
    model.load_state_dict(state)


if __name__ == "__main__":
    test_export_roundtrip()
