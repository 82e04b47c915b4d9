import torch


class RunConfig:
    def __init__(self, lr, epochs):
        self.lr = lr
        self.epochs = epochs


model = torch.nn.Linear(4, 2)
torch.save({"model": model.state_dict(), "config": RunConfig(1e-3, 10)}, "ckpt.pt")
state = torch.load("ckpt.pt")
model.load_state_dict(state["model"])
print("resumed with", state["config"].lr)
