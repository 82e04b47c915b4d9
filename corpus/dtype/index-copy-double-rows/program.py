import numpy as np
import torch

# A float32 embedding bank is refreshed row by row with vectors computed in NumPy (float64).
bank = torch.zeros(10, 4)
fresh = np.random.rand(3, 4)
rows = torch.tensor([1, 4, 7])
bank.index_copy_(0, rows, torch.from_numpy(fresh))
print(bank[1])
