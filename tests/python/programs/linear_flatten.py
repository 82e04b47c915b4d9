# A conv feature map flattened into a Linear sized for the channels alone (PyTorch 1.13, CPU).
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        x = x.flatten(1)
        return self.fc(x)


def main():
    model = Net()
    images = torch.randn(4, 3, 62, 62)
    return model(images)


if __name__ == "__main__":
    main()
