import torch

# A speech recipe's first lines: torch is installed for this interpreter, torchaudio (a separate
# package) is not.
print("torch", torch.__version__)
import torchaudio  # noqa: E402

waveform = torch.zeros(1, 16000)
print(torchaudio.functional.resample(waveform, 16000, 8000).shape)
