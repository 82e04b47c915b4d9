# The handler of a PyTorch error fails itself (a typo in the recovery code): Python prints both
# tracebacks joined by "During handling of the above exception, another exception occurred". The first
# exception is the failure to diagnose; the second only hides it.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Flatten(), nn.Linear(64, 10))
checkpoint_every = 100


def train_step(step, batch):
    try:
        return model(batch).sum()
    except RuntimeError:
        print(f"step {step} failed, saving an emergency checkpoint")
        torch.save(model.state_dict(), f"emergency-{step // checkpoint_evry}.pt")
        raise


train_step(0, torch.randn(8, 4, 4, 4).half())
