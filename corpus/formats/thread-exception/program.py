# A prefetch thread fails: threading's excepthook prints "Exception in thread ...:" and the traceback,
# and the main thread goes on (and finishes normally).
import queue
import threading

import torch

batches = queue.Queue()


def prefetch():
    for i in range(3):
        images = torch.randn(4, 3, 32, 32)
        batches.put(images.permute(0, 2, 3, 1).view(4, -1))


worker = threading.Thread(target=prefetch, name="prefetch")
worker.start()
worker.join()
print(f"main: {batches.qsize()} batches ready")
