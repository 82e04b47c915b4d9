import torch

preds = torch.softmax(torch.randn(4, 3, device="cuda"), dim=1)
import numpy as np
print(np.argmax(preds.numpy(), axis=1))
