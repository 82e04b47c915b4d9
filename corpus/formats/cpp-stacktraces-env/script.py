# Run with TORCH_SHOW_CPP_STACKTRACES=1 (make.sh): the Python exception's message carries c10's
# "Exception raised from ..." line and the C++ frames after the real message.
import torch

scores = torch.randn(4, 5)
index = torch.tensor([[0, 1], [2, 7]])
picked = scores.gather(1, index)
