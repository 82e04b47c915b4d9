# float64 data (from NumPy) into a float32 model (PyTorch 1.13, CPU).
import numpy as np
import torch
import torch.nn as nn

model = nn.Linear(4, 2)


def main():
    data = torch.from_numpy(np.random.rand(3, 4))
    return model(data)
