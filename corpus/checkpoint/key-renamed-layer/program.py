# The model class was refactored after the checkpoint was written (the classifier layer was
# renamed and wrapped in a Sequential), so the stored keys no longer match.
import io

import torch
import torch.nn as nn

torch.manual_seed(0)


class EncoderV1(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(100, 16)
        self.classifier = nn.Linear(16, 4)


class EncoderV2(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(100, 16)
        self.head = nn.Sequential(nn.Dropout(0.1), nn.Linear(16, 4))


buf = io.BytesIO()
torch.save(EncoderV1().state_dict(), buf)
buf.seek(0)
print("restoring encoder from checkpoint (v1 format)", flush=True)
EncoderV2().load_state_dict(torch.load(buf))
