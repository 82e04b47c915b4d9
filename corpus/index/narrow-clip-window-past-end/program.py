import torch

# Audio clips are cut into fixed 4-second windows (16 kHz) starting at a random offset chosen
# for the longest clip; a 3-second clip is shorter than the window that was planned for it.
sample_rate = 16000
window = 4 * sample_rate
clips = [torch.randn(6 * sample_rate), torch.randn(3 * sample_rate)]
offset = 8000
for i, clip in enumerate(clips):
    piece = clip.narrow(0, offset, window)
    print("clip", i, "window", tuple(piece.shape))
