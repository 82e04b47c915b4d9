import torch

# Per-epoch metrics kept as rows of a 3 x 4 table (3 epochs run); the report asks for the row of
# epoch 5, counted as if every planned epoch had been run.
history = torch.zeros(3, 4)
print("epochs run:", history.shape[0])
last = history.select(0, 5)
print(last)
