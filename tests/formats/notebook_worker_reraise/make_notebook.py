# Makes log.txt: a notebook whose third cell fails in a DataLoader worker, with a fourth cell after it,
# executed by nbclient (allow_errors; run with /usr/bin/python3: python3-nbclient, ipykernel,
# python3-torch 1.13) and kept as the executed .ipynb. The worker's traceback is nested in the error
# output's last "traceback" element, and more cells follow the array.
import os
import tempfile

import nbformat
from nbclient import NotebookClient

cells = [
    nbformat.v4.new_code_cell("import torch\nfrom torch.utils.data import DataLoader, Dataset"),
    nbformat.v4.new_code_cell(
        "class Ragged(Dataset):\n"
        "    def __len__(self):\n"
        "        return 8\n"
        "\n"
        "    def __getitem__(self, i):\n"
        "        return torch.zeros(3 + i % 2)"
    ),
    nbformat.v4.new_code_cell("for batch in DataLoader(Ragged(), batch_size=4, num_workers=1):\n    print(batch.shape)"),
    nbformat.v4.new_code_cell("print('after the loader')"),
]
nb = nbformat.v4.new_notebook(cells=cells)
here = os.path.dirname(os.path.abspath(__file__))
with tempfile.TemporaryDirectory() as tmp:
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": tmp}}).execute()
nbformat.write(nb, os.path.join(here, "log.txt"))
