# Task 3 of a SLURM job step; make.sh appends the lines srun and slurmstepd print when a task fails.
import torch
import torch.nn as nn

torch.manual_seed(3)
model = nn.Sequential(nn.Conv1d(40, 64, 5), nn.ReLU(), nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(64, 12))
for step in range(3):
    spectrogram = torch.randn(16, 40, 101)
    if step == 2:
        spectrogram = torch.randn(16, 80, 101)
    logits = model(spectrogram)
    print(f"step {step}: logits {tuple(logits.shape)}", flush=True)
