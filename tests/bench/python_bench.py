#!/usr/bin/env python3
"""Figures for the Python module (bindings/python/README.md); prints them, asserts nothing.

usage: PYTHONPATH=build/python python3 tests/bench/python_bench.py [--blocks 40] [--block-steps 20]

1. Import time, each in a fresh interpreter (best and median of 7): `import triage` (the engine, no
   LibTorch), `import torch` alone, and `import triage.probes` (what triage.check() needs: it imports
   torch). 2. The Monitor's overhead on a small model's training step: a 784-256-256-10 MLP, batch 64,
   Adam, one thread. Blocks of steps with the monitor off and on alternate (off-on, then on-off, so a
   linear drift cancels); the figure is the median over pairs of (on / off - 1), with its quartiles.
   Monitor settings: the defaults (loss every step) and grad_every=1 (also the gradient norm every step).
   A second figure, "direct", is the CPU time spent inside observe() as a share of the monitored steps'
   CPU time: it subtracts nothing, so the step's own noise (large on a shared machine) stays out of it.
"""
import argparse
import statistics
import subprocess
import sys
import time


def import_time(statement, runs=7):
    times = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", f"import time; t = time.perf_counter(); {statement}; "
                              "print(time.perf_counter() - t)"], capture_output=True, text=True, check=True)
        times.append(float(out.stdout.strip()) * 1000)
    return min(times), statistics.median(times)


def monitor_overhead(blocks, block_steps, **settings):
    import torch
    import torch.nn as nn
    import triage
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    batches = [(torch.randn(64, 784), torch.randint(0, 10, (64,))) for _ in range(16)]
    monitor = triage.Monitor(model, **settings)

    def block(observe):
        start = time.thread_time()
        for i in range(block_steps):
            x, y = batches[i % len(batches)]
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            if observe:
                t0 = time.thread_time()
                monitor.observe(loss)
                inside[0] += time.thread_time() - t0
        return time.thread_time() - start

    inside = [0.0]
    block(False)
    block(True)  # warm-up
    inside[0] = 0.0
    ratios, step_ms, on_total = [], [], 0.0
    for b in range(blocks):
        order = (False, True) if b % 2 == 0 else (True, False)
        t = {flag: block(flag) for flag in order}
        ratios.append(t[True] / t[False] - 1)
        on_total += t[True]
        step_ms.append(t[False] / block_steps * 1000)
    q = statistics.quantiles(ratios, n=4)
    return (statistics.median(ratios) * 100, q[0] * 100, q[2] * 100, statistics.median(step_ms),
            inside[0] / on_total * 100)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--blocks", type=int, default=40)
    ap.add_argument("--block-steps", type=int, default=20)
    args = ap.parse_args()
    print("import time (ms, fresh interpreter, best / median of 7):")
    for label, statement in (("import triage", "import triage"), ("import torch", "import torch"),
                             ("import triage.probes", "import triage.probes")):
        best, median = import_time(statement)
        print(f"  {label:22s} {best:8.1f} / {median:8.1f}")
    print(f"monitor overhead ({args.blocks} paired blocks of {args.block_steps} steps, thread CPU time):")
    for label, settings in (("defaults (loss)", {}), ("grad_every=1", {"grad_every": 1})):
        median, q1, q3, step, direct = monitor_overhead(args.blocks, args.block_steps, **settings)
        print(f"  {label:18s} A/B median {median:+.2f}% (q1 {q1:+.2f}%, q3 {q3:+.2f}%); direct (CPU time inside "
              f"observe) {direct:.3f}%; step without monitor {step:.2f} ms")


if __name__ == "__main__":
    main()
