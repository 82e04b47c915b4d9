# A plain configuration bug: the YAML-like config dict lacks a key the script expects.
import torch

config = {"model": {"hidden": 128, "layers": 2}, "train": {"epochs": 10, "batch_size": 32}}
torch.manual_seed(0)
print("Loaded config: experiments/baseline.yaml", flush=True)
lr = config["optimizer"]["lr"]
