import torch
from torch.utils.data import DataLoader

# Reviews with their sentiment as text; the collate function builds the label tensor the way
# transformers' default collator does, but the labels were never mapped to ids.
samples = [
    {"input_ids": [101, 2307, 102], "label": "positive"},
    {"input_ids": [101, 6659, 102], "label": "negative"},
]

def collate(features):
    return {
        "input_ids": torch.tensor([f["input_ids"] for f in features]),
        "labels": torch.tensor([f["label"] for f in features]),
    }

for batch in DataLoader(samples, batch_size=2, collate_fn=collate):
    print(batch["labels"])
