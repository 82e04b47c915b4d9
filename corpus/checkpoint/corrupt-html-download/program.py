# The "checkpoint" is an HTML page: the download URL pointed at a login/confirmation page
# (e.g. a cloud drive's virus-scan warning) instead of the file itself.
import os
import tempfile

import torch

path = os.path.join(tempfile.mkdtemp(), "resnet18_pretrained.pth")
with open(path, "w") as f:
    f.write("<!DOCTYPE html>\n<html><head><title>Google Drive - Virus scan warning</title></head>"
            "<body>Google Drive can't scan this file for viruses.</body></html>\n")
print("Downloaded resnet18_pretrained.pth", flush=True)
weights = torch.load(path, map_location="cpu")
