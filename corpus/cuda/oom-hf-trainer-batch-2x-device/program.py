import os
os.environ["HF_HUB_OFFLINE"] = "1"
import torch
from torch.utils.data import Dataset
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments

class Toy(Dataset):
    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        self.ids = torch.randint(5, 1000, (n, 32), generator=g)
        self.labels = (self.ids[:, 0] % 2).long()

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "attention_mask": torch.ones(32, dtype=torch.long), "labels": self.labels[i]}


config = BertConfig(vocab_size=1000, hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                    intermediate_size=4096, max_position_embeddings=4096)


class Long(Toy):
    def __init__(self):
        super().__init__(64, 0)
        self.ids = torch.randint(5, 1000, (64, 4096))

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "attention_mask": torch.ones(4096, dtype=torch.long), "labels": self.labels[i]}


model = BertForSequenceClassification(config)
args = TrainingArguments(output_dir="out", per_device_train_batch_size=64, num_train_epochs=1, report_to=[],
                         save_strategy="no")
Trainer(model=model, args=args, train_dataset=Long()).train()
