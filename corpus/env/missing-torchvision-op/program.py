# Code (or a TorchScript model exported from a torchvision detector) calls the
# torchvision::nms operator, but torchvision's compiled ops are not registered in this
# process: torchvision is missing, failed to load its C++ library, or was built for a
# different torch release.
import torch

torch.manual_seed(0)
boxes = torch.tensor([[0.0, 0.0, 10.0, 10.0], [1.0, 1.0, 11.0, 11.0], [50.0, 50.0, 60.0, 60.0]])
scores = torch.tensor([0.9, 0.8, 0.7])
print("running detector post-processing", flush=True)
keep = torch.ops.torchvision.nms(boxes, scores, 0.5)
print(keep)
