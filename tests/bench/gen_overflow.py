#!/usr/bin/env python3
"""Writes an fp16 training log in which the loss-scale overflow lines form many separate incidents.

The lines are apex's and DeepSpeed's ("Gradient overflow.  Skipping step, loss scaler 0 reducing loss
scale to X", "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: X, reducing to Y"),
about 30% of the bytes, in runs of one to three separated by progress and logging lines (more than the
segmenter's merge gap of 5 lines), so each run is an incident of its own. Each DeepSpeed line carries
its timestamp, so the runs are distinct incidents rather than copies merged into one. The dynamic scale
follows DeepSpeed's rule: halved on each overflow, doubled after a window of clean steps.
This is the input of "Lua across incidents" in tests/bench/README.md. Deterministic, no torch.

usage: gen_overflow.py OUT [--size BYTES] (default 25,000,000)
"""
import argparse
import datetime
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--size", type=int, default=25_000_000)
    args = ap.parse_args()
    rng = random.Random(20261128)
    t = datetime.datetime(2023, 6, 7, 22, 0, 0)
    scale = 65536.0
    step = 0
    written = 0
    total = 2724
    with open(args.out, "w", newline="\n") as f:
        def put(line):
            nonlocal written
            f.write(line + "\n")
            written += len(line) + 1

        while written < args.size:
            # A run of overflow lines: one incident.
            for _ in range(rng.randint(1, 3)):
                step += 1
                t += datetime.timedelta(milliseconds=rng.randint(300, 900))
                stamp = t.strftime("%Y-%m-%d %H:%M:%S,") + "%03d" % (t.microsecond // 1000)
                new = max(scale / 2, 1.0)
                if rng.random() < 0.5:
                    put("[%s] [INFO] [stage_1_and_2.py:1785:step] [deepspeed] OVERFLOW! Rank 0 Skipping step. "
                        "Attempted loss scale: %d, reducing to %d" % (stamp, scale, new))
                else:
                    put("[%s] [INFO] [logging.py:96:log_dist] [Rank 0] Gradient overflow.  Skipping step, "
                        "loss scaler 0 reducing loss scale to %.1f" % (stamp, new))
                scale = new
            # Clean steps: progress bars and logging lines, past the merge gap.
            for _ in range(rng.randint(6, 12)):
                step += 1
                t += datetime.timedelta(milliseconds=rng.randint(300, 900))
                if rng.random() < 0.5:
                    done = step % total
                    put(" %2d%%|%-10s| %d/%d [01:02<06:25,  %.2fit/s]" % (
                        100 * done // total, "#" * (10 * done // total), done, total, rng.uniform(5, 7)))
                else:
                    put("[%s] [INFO] [logging.py:96:log_dist] [Rank 0] step=%d, skipped=%d, lr=[%.6e], "
                        "mom=[(0.9, 0.999)]" % (t.strftime("%Y-%m-%d %H:%M:%S,000"), step, step // 9,
                                                rng.uniform(1e-5, 1e-4)))
                if step % 1000 == 0 and scale < 65536:
                    scale *= 2  # DeepSpeed's scale window: grow again after clean steps


if __name__ == "__main__":
    main()
