import os
os.environ["CXX"] = "/opt/toolchain/bin/g++-13"  # a path from another machine's setup
import torch


@torch.compile
def f(x):
    return torch.sin(x) + torch.cos(x)


print(f(torch.randn(32)))
