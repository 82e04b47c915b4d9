# Asking the CPU allocator for 128 TiB: c10's CAFFE_ENFORCE prints the old "[enforce fail at ...]" form.
import torch

activations = torch.empty(2**45)
