# Writes notebook.ipynb: a three-cell notebook whose last cell fails (run by make.sh with /usr/bin/python3).
import nbformat

cells = [
    nbformat.v4.new_code_cell("import torch\nimport torch.nn as nn"),
    nbformat.v4.new_code_cell(
        "class Tagger(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.emb = nn.Embedding(100, 32)\n"
        "        self.rnn = nn.LSTM(32, 64, batch_first=True)\n"
        "        self.out = nn.Linear(128, 5)\n"
        "\n"
        "    def forward(self, tokens):\n"
        "        hidden, _ = self.rnn(self.emb(tokens))\n"
        "        return self.out(hidden)"
    ),
    nbformat.v4.new_code_cell("model = Tagger()\nscores = model(torch.randint(0, 100, (4, 12)))\nscores.shape"),
]
nbformat.write(nbformat.v4.new_notebook(cells=cells), "notebook.ipynb")
