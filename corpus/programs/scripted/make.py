# Writes the TorchScript models and tensors triage-probe is tested on (run with Debian's
# /usr/bin/python3, which has torch 1.13). Output is committed; rerun only to change the cases.
#   softmax_mlp.pt: an MLP whose forward ends in softmax, trained with cross-entropy (planted bug)
#   clean_mlp.pt:   the same MLP returning logits (control)
#   x.pt, y.pt:     one batch (float32 [64, 20], int64 labels in 0..9)
#   y_1based.pt:    the same labels shifted to 1..10 (labels out of range for 10 classes)
#   y_float.pt:     the same labels as float32 (cross-entropy raises "expected scalar type Long")
#   bn_mlp.pt:      an MLP with BatchNorm1d; x1.pt / y1.pt: a batch of one sample, on which its
#                   forward raises a Python ValueError inside the TorchScript code (F.batch_norm)
#   dead_mlp.pt:    the logits MLP with most of fc1's units dead and exploding gradients (see its block)
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


class BnMlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 64)
        self.bn = nn.BatchNorm1d(64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.bn(self.fc1(x))))


torch.manual_seed(0)
x = torch.randn(64, 20)
y = (x @ torch.randn(20, 10)).argmax(1)
torch.save(x, "x.pt")
torch.save(y, "y.pt")
torch.save(y + 1, "y_1based.pt")
torch.save(y.float(), "y_float.pt")
torch.save(x[:1].clone(), "x1.pt")
torch.save(y[:1].clone(), "y1.pt")
torch.manual_seed(1)
torch.jit.save(torch.jit.script(Mlp(True)), "softmax_mlp.pt")
torch.manual_seed(1)
torch.jit.save(torch.jit.script(Mlp(False)), "clean_mlp.pt")
torch.manual_seed(1)
torch.jit.save(torch.jit.script(BnMlp()), "bn_mlp.pt")

# dead_mlp.pt: the logits MLP with two planted faults the per-layer probes see, for the HTML report's
# layer plots: 48 of fc1's 64 units dead (bias -20: their ReLU outputs 0 for every sample; probe
# dead-activations) and fc2's weights scaled by 1000 (fc1's gradient norm far above 100; grad-health).
torch.manual_seed(1)
dead = Mlp(False)
with torch.no_grad():
    dead.fc1.bias[:48] = -20.0
    dead.fc2.weight.mul_(1000.0)
torch.jit.save(torch.jit.script(dead), "dead_mlp.pt")
