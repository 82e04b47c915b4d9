# Class labels numbered 1..10 for a 10-way classifier (PyTorch 1.13, CPU).
import torch
import torch.nn as nn
import torch.nn.functional as F

head = nn.Linear(32, 10)


def main():
    features = torch.randn(8, 32)
    labels = torch.arange(1, 9) + 2  # 3..10: 10 is one past the last class
    return F.cross_entropy(head(features), labels)
