"""`%load_ext triage` in a real Jupyter kernel (nbclient + ipykernel): the failing cell keeps its
traceback and gets the diagnosis as HTML (text/html) with a text/plain twin; other cells are untouched."""
import html
import os

import nbformat
import pytest
from conftest import env

nbclient = pytest.importorskip("nbclient", reason="python3-nbclient is installed by .ci/setup")


def run_notebook(cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    old = dict(os.environ)
    os.environ.update(env())  # the kernel inherits PYTHONPATH (the build's triage package)
    try:
        nbclient.NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True).execute()
    finally:
        os.environ.clear()
        os.environ.update(old)
    return nb


def test_failing_cell_gets_an_html_diagnosis_under_its_traceback():
    nb = run_notebook([
        "%load_ext triage",
        "import torch\nlayer = torch.nn.Linear(64, 10)\nx = torch.randn(4, 3 * 8 * 8 * 2)\nprint('ready')",
        "layer(x)",
        "print('still alive')",
    ])
    load, setup, failing, after = nb.cells
    assert all(o.output_type != "error" for o in load.outputs + setup.outputs)
    kinds = [o.output_type for o in failing.outputs]
    assert kinds[0] == "error", kinds  # the usual traceback first
    assert failing.outputs[0].ename == "RuntimeError"
    displays = [o for o in failing.outputs if o.output_type == "display_data"]
    assert len(displays) == 1, kinds
    page = displays[0].data["text/html"]
    assert page.startswith('<pre class="triage-report">') and page.endswith("</pre>")
    assert "shape.matmul_mismatch" in page and "[confirmed]" in page
    # Log text is escaped: no markup of its own reaches the page.
    inner = page[len('<pre class="triage-report">'):-len("</pre>")]
    assert "<" not in inner and "&lt;module&gt;" in inner
    assert html.unescape(inner).rstrip("\n") == displays[0].data["text/plain"]  # the same report as text
    assert after.outputs[0].text == "still alive\n"


def test_unload_restores_ipythons_own_handling():
    nb = run_notebook(["%load_ext triage", "%unload_ext triage", "import torch\ntorch.nn.Linear(64, 10)(torch.randn(2, 5))"])
    failing = nb.cells[2]
    assert [o.output_type for o in failing.outputs] == ["error"]
