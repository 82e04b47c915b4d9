import sys

# Stands in for a Python other than the one torch was installed for (another venv, a notebook
# kernel, sudo's python): this interpreter's search path lacks the directory holding torch.
sys.path[:] = [p for p in sys.path if not p.endswith(("site-packages", "dist-packages"))]
print("python", sys.executable)
import torch  # noqa: E402

print(torch.zeros(2, 3).sum())
