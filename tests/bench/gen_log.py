#!/usr/bin/python3
"""Writes a realistic training log of a given size for the throughput benchmark.

The log is what a long training job leaves: progress lines (plain prints, `logging` lines with
timestamps, tqdm bars redrawn with '\\r'), the healthy runs and harmless warnings of corpus/negative/,
and now and then a real failure from corpus/ (tracebacks, C++ errors, CUDA and DataLoader errors),
between which training "restarts". The numbers in the progress lines come from a real run: the
script trains a small MLP with torch (Debian python3-torch 1.13.1, /usr/bin/python3) and reuses its
losses, gradient norms and learning rates. Deterministic for a given --seed.

usage: tests/bench/gen_log.py OUT [--size BYTES] [--failure-every BYTES] [--seed N]
"""
import argparse
import glob
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def real_training_values(steps=2000):
    """(loss, grad_norm, lr) per step from a real small training run."""
    try:
        import torch
    except ImportError:
        sys.exit("gen_log.py: needs torch (run it with /usr/bin/python3)")
    torch.manual_seed(0)
    x = torch.randn(512, 32)
    y = (x[:, :4].sum(1) > 0).long()
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    out = []
    for _ in range(steps):
        idx = torch.randint(0, 512, (64,))
        loss = torch.nn.functional.cross_entropy(model(x[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
        opt.step()
        sched.step()
        out.append((loss.item(), norm.item(), sched.get_last_lr()[0]))
    return out


def corpus_logs(pattern):
    logs = []
    for path in sorted(glob.glob(os.path.join(ROOT, "corpus", pattern, "log.txt"))):
        with open(path, "rb") as f:
            data = f.read()
        if len(data) > 256 * 1024:  # the huge-line case would dominate the mix
            continue
        if not data.endswith(b"\n"):
            data += b"\n"
        logs.append(data)
    return logs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--size", type=int, default=1 << 30, help="bytes to write (default 1 GiB)")
    ap.add_argument("--failure-every", type=int, default=4 << 20,
                    help="average bytes of progress between real failures (default 4 MiB)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    rng = random.Random(args.seed)
    values = real_training_values()
    negatives = corpus_logs("negative/*")
    failures = [log for log in corpus_logs("*/*") if log not in negatives]
    if not failures:
        sys.exit("gen_log.py: no corpus logs found under " + os.path.join(ROOT, "corpus"))

    written = 0
    step = 0
    epoch = 1
    failures_written = 0
    next_failure = rng.expovariate(1.0 / args.failure_every)
    with open(args.out, "wb", buffering=1 << 20) as f:
        while written < args.size:
            style = rng.randrange(3)
            lines = []
            for _ in range(2000):
                loss, norm, lr = values[step % len(values)]
                step += 1
                if step % 5000 == 0:
                    epoch += 1
                if style == 0:
                    lines.append("epoch %d step %d/5000  loss %.4f  grad_norm %.3f  lr %.2e\n"
                                 % (epoch, step % 5000, loss, norm, lr))
                elif style == 1:
                    lines.append("2024-03-%02d %02d:%02d:%02d,%03d INFO trainer.py:214] [%d/%d] loss=%.5f "
                                 "grad_norm=%.4f lr=%.6f samples/s=%.1f\n"
                                 % (1 + epoch % 28, step // 3600 % 24, step // 60 % 60, step % 60, step % 1000,
                                    step % 5000, 5000, loss, norm, lr, 800 + 40 * norm))
                else:
                    # tqdm redraws its bar with '\r'; a log file keeps every redraw on one line.
                    n = step % 5000
                    pct = n * 100 // 5000
                    bar = "#" * (pct // 10) + " " * (10 - pct // 10)
                    lines.append("\rEpoch %d: %3d%%|%s| %d/5000 [%02d:%02d<%02d:%02d, %.2fit/s, loss=%.3f]"
                                 % (epoch, pct, bar, n, n // 60 % 60, n % 60, (5000 - n) // 60 % 60,
                                    (5000 - n) % 60, 41.5 + norm, loss))
                    if n % 50 == 0:
                        lines.append("\n")
            chunk = "".join(lines).encode()
            if style == 2 and not chunk.endswith(b"\n"):
                chunk += b"\n"
            f.write(chunk)
            written += len(chunk)
            if rng.random() < 0.05 and negatives:
                block = rng.choice(negatives)
                f.write(block)
                written += len(block)
            next_failure -= len(chunk)
            if next_failure <= 0:
                block = rng.choice(failures)
                f.write(block)
                written += len(block)
                failures_written += 1
                next_failure = rng.expovariate(1.0 / args.failure_every)
    print("gen_log.py: wrote %d bytes to %s (%d real failures from corpus/)" % (written, args.out, failures_written))


if __name__ == "__main__":
    main()
