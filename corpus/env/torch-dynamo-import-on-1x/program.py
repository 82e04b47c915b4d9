import torch
import torch._dynamo

# A benchmark script raises Dynamo's recompile limit before compiling (2.x code on a 1.13 install).
torch._dynamo.config.cache_size_limit = 64
print("torch", torch.__version__)
