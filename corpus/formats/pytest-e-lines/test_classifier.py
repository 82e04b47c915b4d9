# A unit test of a tiny classifier; pytest reports the failure with its `E   ` lines.
import torch
import torch.nn as nn

torch.manual_seed(0)


def build_classifier():
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                         nn.Flatten(), nn.Linear(8, 5))


def test_forward_shape():
    model = build_classifier()
    grayscale = torch.randn(2, 1, 32, 32)
    out = model(grayscale)
    assert out.shape == (2, 5)


def test_parameter_count():
    model = build_classifier()
    assert sum(p.numel() for p in model.parameters()) > 0
