# Writes the TorchScript models and tensors triage-probe is tested on (run with Debian's
# /usr/bin/python3, which has torch 1.13). Output is committed; rerun only to change the cases.
#   softmax_mlp.pt: an MLP whose forward ends in softmax, trained with cross-entropy (planted bug)
#   clean_mlp.pt:   the same MLP returning logits (control)
#   x.pt, y.pt:     one batch (float32 [64, 20], int64 labels in 0..9)
#   y_1based.pt:    the same labels shifted to 1..10 (labels out of range for 10 classes)
import torch
import torch.nn as nn


class Mlp(nn.Module):
    def __init__(self, softmax: bool):
        super().__init__()
        self.fc1 = nn.Linear(20, 64)
        self.fc2 = nn.Linear(64, 10)
        self.softmax = softmax

    def forward(self, x):
        out = self.fc2(torch.relu(self.fc1(x)))
        if self.softmax:
            out = torch.softmax(out, dim=1)
        return out


torch.manual_seed(0)
x = torch.randn(64, 20)
y = (x @ torch.randn(20, 10)).argmax(1)
torch.save(x, "x.pt")
torch.save(y, "y.pt")
torch.save(y + 1, "y_1based.pt")
torch.manual_seed(1)
torch.jit.save(torch.jit.script(Mlp(True)), "softmax_mlp.pt")
torch.manual_seed(1)
torch.jit.save(torch.jit.script(Mlp(False)), "clean_mlp.pt")
