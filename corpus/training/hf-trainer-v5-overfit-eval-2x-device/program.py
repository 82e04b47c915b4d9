import os
os.environ["HF_HUB_OFFLINE"] = "1"
import torch
from torch.utils.data import Dataset
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments


class Noisy(Dataset):
    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        self.ids = torch.randint(5, 1000, (n, 32), generator=g)
        self.labels = torch.randint(0, 2, (n,), generator=g)  # labels unrelated to the text

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "attention_mask": torch.ones(32, dtype=torch.long), "labels": self.labels[i]}


config = BertConfig(vocab_size=1000, hidden_size=256, num_hidden_layers=4, num_attention_heads=4, intermediate_size=512)
model = BertForSequenceClassification(config)
args = TrainingArguments(output_dir="out", per_device_train_batch_size=16, num_train_epochs=15, learning_rate=2e-4,
                         logging_strategy="epoch", eval_strategy="epoch", report_to=[], save_strategy="no", seed=0,
                         disable_tqdm=True)
Trainer(model=model, args=args, train_dataset=Noisy(256, 0), eval_dataset=Noisy(256, 1)).train()
