# A tqdm progress bar on stderr redraws itself with carriage returns; the traceback starts after the last
# partial redraw, on the same line as the bar unless the bar printed a newline.
import torch
import torch.nn as nn
from tqdm import tqdm

torch.manual_seed(0)
model = nn.Linear(16, 3)
loss_fn = nn.CrossEntropyLoss()
labels = [torch.randint(0, 3, (8,)) for _ in range(40)]
labels[27] = torch.tensor([0, 1, 2, 3, 1, 0, 2, 1])

for step in tqdm(range(40), desc="train", mininterval=0, ascii=True, ncols=80):
    loss = loss_fn(model(torch.randn(8, 16)), labels[step])
    loss.backward()
