# A Dataset class defined inside a function: fine with num_workers=0, but spawned worker
# processes cannot pickle an instance of a class that only exists in a function's locals.
import torch
from torch.utils.data import DataLoader, Dataset


def make_loader(n):
    class Windows(Dataset):
        def __init__(self):
            self.series = torch.arange(n, dtype=torch.float32)

        def __len__(self):
            return n - 8

        def __getitem__(self, i):
            return self.series[i:i + 8]

    return DataLoader(Windows(), batch_size=16, num_workers=2,
                      multiprocessing_context="spawn")


def main():
    torch.manual_seed(0)
    loader = make_loader(200)
    print("num_workers=0 check passed; starting workers", flush=True)
    for step, x in enumerate(loader):
        print(step, x.shape)


if __name__ == "__main__":
    main()
