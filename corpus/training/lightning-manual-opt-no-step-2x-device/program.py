import torch
import torch.nn as nn
import lightning as L
from lightning.pytorch.callbacks import TQDMProgressBar
from torch.utils.data import DataLoader, TensorDataset


class Classifier(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.automatic_optimization = False
        self.net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        x, y = batch
        loss = nn.functional.cross_entropy(self.net(x), y)
        opt.zero_grad()
        self.manual_backward(loss)
        self.log("train_loss", loss, prog_bar=True, on_step=True, on_epoch=True)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


g = torch.Generator().manual_seed(0)
x = torch.randn(2048, 64, generator=g)
y = (x @ torch.randn(64, 10, generator=g)).argmax(dim=1)
loader = DataLoader(TensorDataset(x, y), batch_size=256, shuffle=True)
trainer = L.Trainer(max_epochs=12, accelerator="gpu", devices=1, logger=False, enable_checkpointing=False,
                    callbacks=[TQDMProgressBar(refresh_rate=4)])
trainer.fit(Classifier(), loader)
print("final", trainer.callback_metrics)
