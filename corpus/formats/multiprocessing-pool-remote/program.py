# A multiprocessing.Pool task fails: the worker's traceback comes back as the text of a RemoteTraceback,
# printed between triple quotes, chained as the direct cause of the re-raised error.
from multiprocessing import Pool

import torch


def score(seed):
    torch.manual_seed(seed)
    weights = torch.randn(16, 8)
    features = torch.randn(4, 16 if seed != 2 else 12)
    return (features @ weights).sum().item()


if __name__ == "__main__":
    with Pool(2) as pool:
        print(pool.map(score, range(4)))
