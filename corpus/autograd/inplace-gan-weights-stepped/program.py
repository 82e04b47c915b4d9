# GAN-style loop: the discriminator's optimizer.step() updates its weights in place
# between the forward pass and the generator's backward through the same graph.
import torch
import torch.nn as nn

torch.manual_seed(0)

G = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
D = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
bce = nn.BCEWithLogitsLoss()

real = torch.randn(32, 4)
for it in range(2):
    z = torch.randn(32, 8)
    fake = G(z)
    d_fake = D(fake)
    d_loss = bce(D(real), torch.ones(32, 1)) + bce(d_fake, torch.zeros(32, 1))
    opt_d.zero_grad()
    d_loss.backward(retain_graph=True)
    opt_d.step()                       # D's weights change in place here
    g_loss = bce(d_fake, torch.ones(32, 1))
    opt_g.zero_grad()
    g_loss.backward()                  # reuses the graph built with the old D weights
    opt_g.step()
    print(f"iter {it}: d_loss={d_loss.item():.4f} g_loss={g_loss.item():.4f}")
