import torch
import torch.nn as nn
from safetensors.torch import save_file


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(100, 32)
        self.lm_head = nn.Linear(32, 100, bias=False)
        self.lm_head.weight = self.embed.weight  # tied


save_file(TinyLM().state_dict(), "model.safetensors")
print("saved")
