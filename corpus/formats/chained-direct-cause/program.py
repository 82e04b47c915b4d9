# A training loop that wraps every failure in its own exception type with `raise ... from err`:
# the PyTorch error is the cause, the wrapper only says which step failed.
import torch
import torch.nn as nn


class TrainingStepError(Exception):
    pass


model = nn.Linear(32, 4)
loss_fn = nn.CrossEntropyLoss()


def train_step(step, x, y):
    logits = model(x)
    return loss_fn(logits, y)


x = torch.randn(16, 32)
y = torch.randint(0, 4, (8,))
for step in range(3):
    try:
        loss = train_step(step, x, y)
    except (RuntimeError, ValueError) as err:
        raise TrainingStepError(f"training step {step} failed") from err
