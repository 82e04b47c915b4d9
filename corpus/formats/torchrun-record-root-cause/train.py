# The entry point is wrapped in torch.distributed.elastic's @record: the failing rank writes its
# exception to an error file and torchrun's "Root Cause" summary prints that traceback.
import torch
import torch.nn as nn
from torch.distributed.elastic.multiprocessing.errors import record


@record
def main():
    model = nn.Linear(10, 10)
    x = torch.randn(4, 10, requires_grad=True)
    y = model(x).relu_()
    y.sum().backward()
    y.sum().backward()


if __name__ == "__main__":
    main()
