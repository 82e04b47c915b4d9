import os
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TOKENIZERS_PARALLELISM"] = "false"
import torch
from torch.utils.data import Dataset
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments


class Toy(Dataset):
    def __init__(self, n=512):
        g = torch.Generator().manual_seed(0)
        self.ids = torch.randint(5, 1000, (n, 32), generator=g)
        self.labels = (self.ids[:, 0] % 2).long()

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "attention_mask": torch.ones(32, dtype=torch.long), "labels": self.labels[i]}


config = BertConfig(vocab_size=1000, hidden_size=128, num_hidden_layers=2, num_attention_heads=2, intermediate_size=256)
model = BertForSequenceClassification(config)
args = TrainingArguments(output_dir="out", per_device_train_batch_size=16, num_train_epochs=1, learning_rate=5.0,
                         logging_steps=2, report_to=[], save_strategy="no", fp16=True, max_grad_norm=0.0,
                         disable_tqdm=False, seed=0)
Trainer(model=model, args=args, train_dataset=Toy()).train()
