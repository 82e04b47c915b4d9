# Fine-tuning: a backbone trained with a 10-class head is loaded into a model built with a
# 100-class head; every other tensor fits, the classifier does not.
import io

import torch
import torch.nn as nn

torch.manual_seed(0)


def build(num_classes):
    return nn.Sequential(nn.Flatten(), nn.Linear(3 * 16 * 16, 512), nn.ReLU(),
                         nn.Linear(512, num_classes))


buf = io.BytesIO()
torch.save(build(10).state_dict(), buf)
buf.seek(0)
model = build(100)
missing = model.load_state_dict(torch.load(buf))
