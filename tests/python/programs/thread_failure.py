# An exception in a worker thread and another in the main thread, with triage.install() (PyTorch 1.13).
import threading

import torch
import triage

triage.install()
model = torch.nn.Linear(64, 10)


def worker():
    model(torch.randn(2, 32))


t = threading.Thread(target=worker)
t.start()
t.join()
print("main thread goes on")
model(torch.randn(4, 128))
