# Imitates how ComfyUI's execution.py runs a node and reports its failure: "!!! Exception during processing
# !!!", the traceback from traceback.format_exc(), then main.py's "Prompt executed in ..." line. The node
# feeds SDXL-sized text embeddings (2048) to cross-attention built for SD 1.5 (768): a real PyTorch error.
import time
import traceback

import torch
import torch.nn as nn


class CrossAttention(nn.Module):
    def __init__(self, query_dim=320, context_dim=768):
        super().__init__()
        self.to_k = nn.Linear(context_dim, query_dim, bias=False)

    def forward(self, x, context):
        return self.to_k(context)


def sample(unet, latent, positive):
    return unet(latent, positive)


def recursive_execute(inputs):
    try:
        return sample(CrossAttention(), inputs["latent"], inputs["positive"])
    except Exception:
        print("!!! Exception during processing !!!")
        print(traceback.format_exc())


start = time.perf_counter()
recursive_execute({"latent": torch.randn(2, 4096, 320), "positive": torch.randn(2, 77, 2048)})
print("Prompt executed in {:.2f} seconds".format(time.perf_counter() - start))
