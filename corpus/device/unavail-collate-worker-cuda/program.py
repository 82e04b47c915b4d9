# The collate_fn moves each batch to 'cuda' inside a DataLoader worker on a CPU-only build.
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
ds = TensorDataset(torch.randn(32, 5), torch.randint(0, 2, (32,)))


def to_gpu_collate(batch):
    xs = torch.stack([b[0] for b in batch])
    ys = torch.stack([b[1] for b in batch])
    return xs.to("cuda"), ys.to("cuda")


if __name__ == "__main__":
    loader = DataLoader(ds, batch_size=8, num_workers=1, collate_fn=to_gpu_collate)
    for x, y in loader:
        print(x.shape)
