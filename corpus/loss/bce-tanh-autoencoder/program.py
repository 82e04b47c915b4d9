# An autoencoder for images scaled to [0, 1] whose decoder ends in tanh (range [-1, 1]), trained with
# BCELoss as in the usual VAE examples: the loss accepts the [0, 1] targets but not a negative output.
import torch
import torch.nn as nn

torch.manual_seed(1)
images = torch.rand(128, 1, 8, 8)
encoder = nn.Sequential(nn.Flatten(), nn.Linear(64, 16), nn.ReLU())
decoder = nn.Sequential(nn.Linear(16, 64), nn.Tanh(), nn.Unflatten(1, (1, 8, 8)))
params = list(encoder.parameters()) + list(decoder.parameters())
opt = torch.optim.Adam(params, lr=1e-3)
for epoch in range(2):
    for i in range(0, 128, 32):
        batch = images[i:i + 32]
        recon = decoder(encoder(batch))
        loss = nn.functional.binary_cross_entropy(recon, batch, reduction="sum")
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"epoch {epoch} batch {i // 32} loss {loss.item() / len(batch):.3f}")
