import torch
from torch.utils.data import DataLoader, Dataset


class OnGpu(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, i):
        return torch.full((4,), float(i), device="cuda")


if __name__ == "__main__":
    torch.cuda.init()
    loader = DataLoader(OnGpu(), batch_size=4, num_workers=2, multiprocessing_context="fork")
    for batch in loader:
        print(batch.shape)
