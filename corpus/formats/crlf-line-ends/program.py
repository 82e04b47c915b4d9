# A real traceback; make.sh converts its line ends to CRLF, as a log saved or pasted on Windows has them.
import torch

text_features = torch.randn(4, 3, 16)
image_features = torch.randn(4, 4, 8)
joint = torch.cat([text_features, image_features], dim=2)
