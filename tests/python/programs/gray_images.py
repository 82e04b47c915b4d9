# Grayscale images (1 channel) handed to a network built for RGB (PyTorch 1.13, CPU).
import torch
import torch.nn as nn

model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 2))


def main():
    return model(torch.randn(2, 1, 28, 28))
