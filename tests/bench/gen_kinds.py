#!/usr/bin/python3
"""Writes the inputs of kinds_throughput.sh: one log per kind of text people feed triage.

usage: tests/bench/gen_kinds.py OUT_DIR [--size BYTES] [--big-size BYTES] [--seed N] [KIND...]

Kinds (OUT_DIR/KIND.log, about --size bytes each; `construction` gets --big-size):
  tqdm          tqdm bars redrawn with '\\r' (a metric in the postfix), a newline every 50 redraws
  hf            Hugging Face Trainer dict lines: {'loss': ..., 'grad_norm': ..., 'learning_rate': ..., 'epoch': ...}
  kv            logging lines with an INFO prefix and key=value metrics
  web           web-server-like text without metrics (access lines, app lines naming workers, indexes,
                requests): the words of ordinary text, not of PyTorch
  traceback1pct kv lines with 1% of all lines inside real tracebacks from corpus/
  construction  the 1 GiB bench's log (issue 15): kv progress lines, and every ~4 MiB a failure from
                corpus/ that starts with a traceback logged with a [timestamp][ERROR] prefix on every
                line, uncaught c10::Errors (terminate called ...) and a caught one's what() + backtrace
The numbers are pseudo-random but deterministic for a given --seed; no torch needed.
"""
import argparse
import os
import random

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read(rel):
    with open(os.path.join(ROOT, rel), "rb") as f:
        data = f.read()
    return data if data.endswith(b"\n") else data + b"\n"


class Values:
    """A plausible training curve: loss decays with noise, grad norm and lr follow."""

    def __init__(self, rng):
        self.rng = rng
        self.step = 0

    def next(self):
        self.step += 1
        s = self.step
        loss = 2.5 * (0.9995 ** (s % 20000)) + self.rng.random() * 0.05
        return s, loss, 0.5 + self.rng.random() * 2, 1e-3 * (1 - (s % 20000) / 20000.0)


def tqdm_chunk(v, rng):
    out = []
    for _ in range(2000):
        s, loss, _, _ = v.next()
        n = s % 5000
        pct = n * 100 // 5000
        bar = "#" * (pct // 10) + " " * (10 - pct // 10)
        out.append("\rEpoch %d: %3d%%|%s| %d/5000 [%02d:%02d<%02d:%02d, %.2fit/s, loss=%.3f]"
                   % (s // 5000, pct, bar, n, n // 60 % 60, n % 60, (5000 - n) // 60 % 60, (5000 - n) % 60,
                      40 + rng.random() * 3, loss))
        if n % 50 == 0:
            out.append("\n")
    return "".join(out) + "\n"


def hf_chunk(v, rng):
    out = []
    for _ in range(2000):
        s, loss, norm, lr = v.next()
        out.append("{'loss': %.4f, 'grad_norm': %.6f, 'learning_rate': %.4e, 'epoch': %.2f}\n"
                   % (loss, norm, lr, s / 5000.0))
    return "".join(out)


def kv_line(v):
    s, loss, norm, lr = v.next()
    return ("2024-03-%02d %02d:%02d:%02d,%03d INFO trainer.py:214] [%d/5000] loss=%.5f grad_norm=%.4f lr=%.6f "
            "samples/s=%.1f\n" % (1 + s // 86400 % 28, s // 3600 % 24, s // 60 % 60, s % 60, s % 1000, s % 5000,
                                  loss, norm, lr, 800 + 40 * norm))


def kv_chunk(v, rng):
    return "".join(kv_line(v) for _ in range(2000))


PATHS = ["/api/v1/items", "/api/v1/users/%d", "/static/app.js", "/healthz", "/search?q=shoes&page=%d",
         "/api/v1/orders/%d/status", "/login", "/index.html", "/api/v2/index/rebuild"]
AGENTS = ["Mozilla/5.0 (X11; Linux x86_64)", "curl/7.88.1", "python-requests/2.31.0", "kube-probe/1.27"]
APP = [
    "worker %d picked up job %d from queue default",
    "request id=%d completed in %d ms",
    "index shard %d refreshed, %d documents",
    "cache miss for key user:%d, fetching from database (%d ms)",
    "scheduler: %d jobs pending, %d workers idle",
    "connection pool: %d active, %d idle",
    "retrying upstream call to payments (attempt %d of %d)",
    "GC pause %d ms, heap %d MB",
    "session %d expired after %d s of inactivity",
    "rebuilt search index for tenant %d in %d ms",
]


def web_chunk(v, rng):
    out = []
    for _ in range(2000):
        s, _, _, _ = v.next()
        if rng.random() < 0.6:
            path = rng.choice(PATHS)
            if "%d" in path:
                path = path % rng.randrange(1, 100000)
            out.append('10.%d.%d.%d - - [21/Nov/2026:09:%02d:%02d +0000] "GET %s HTTP/1.1" %d %d "-" "%s"\n'
                       % (rng.randrange(256), rng.randrange(256), rng.randrange(256), s // 60 % 60, s % 60, path,
                          rng.choice([200, 200, 200, 304, 404, 500]), rng.randrange(100, 90000), rng.choice(AGENTS)))
        else:
            msg = rng.choice(APP) % (rng.randrange(1, 5000), rng.randrange(1, 5000))
            out.append("2026-11-21T09:%02d:%02d.%03dZ %s app.%s %s\n"
                       % (s // 60 % 60, s % 60, s % 1000, rng.choice(["INFO", "INFO", "INFO", "WARN", "DEBUG"]),
                          rng.choice(["http", "jobs", "search", "db"]), msg))
    return "".join(out)


def tracebacks():
    """Real Python tracebacks from corpus/formats (lines that are all traceback)."""
    out = []
    for rel in ["tests/formats/python_traceback/log.txt", "corpus/formats/caret-lines/log.txt",
                "corpus/formats/chained-during-handling/log.txt", "corpus/formats/windows-paths/log.txt"]:
        if os.path.exists(os.path.join(ROOT, rel)):
            out.append(read(rel).decode("utf-8", "replace"))
    return out


def traceback_chunk(v, rng, blocks):
    # Before each progress line, a block with probability 1% / (its mean length): 1% of lines are in one.
    mean = sum(b.count("\n") for b in blocks) / len(blocks)
    out = []
    for _ in range(2000):
        if rng.random() < 0.01 / mean:
            out.append(rng.choice(blocks))
        out.append(kv_line(v))
    return "".join(out)


def construction_failures():
    return [read("corpus/formats/logging-timestamp-every-line/log.txt").decode(),
            read("tests/formats/cxx_error/log.txt").decode(),
            read("tests/formats/cxx_error_caught/log.txt").decode(),
            read("tests/formats/cxx_error/log.txt").decode()]


def write(path, size, chunk):
    written = 0
    with open(path, "w", buffering=1 << 20) as f:
        while written < size:
            c = chunk()
            f.write(c)
            written += len(c.encode())
    return written


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--size", type=int, default=64 << 20)
    ap.add_argument("--big-size", type=int, default=None, help="size of `construction` (default: --size)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("kinds", nargs="*")
    args = ap.parse_intermixed_args()
    kinds = args.kinds or ["tqdm", "hf", "kv", "web", "traceback1pct", "construction"]
    os.makedirs(args.out_dir, exist_ok=True)
    for kind in kinds:
        rng = random.Random("%s-%d" % (kind, args.seed))
        v = Values(rng)
        path = os.path.join(args.out_dir, kind + ".log")
        size = args.size
        if kind == "tqdm":
            chunk = lambda: tqdm_chunk(v, rng)
        elif kind == "hf":
            chunk = lambda: hf_chunk(v, rng)
        elif kind == "kv":
            chunk = lambda: kv_chunk(v, rng)
        elif kind == "web":
            chunk = lambda: web_chunk(v, rng)
        elif kind == "traceback1pct":
            blocks = tracebacks()
            chunk = lambda: traceback_chunk(v, rng, blocks)
        elif kind == "construction":
            size = args.big_size or args.size
            failures = construction_failures()
            state = {"next": 0, "i": 0}

            def chunk():
                c = kv_chunk(v, rng)
                state["next"] -= len(c)
                if state["next"] <= 0:
                    c += failures[state["i"] % len(failures)]
                    state["i"] += 1
                    state["next"] = 4 << 20
                return c
        else:
            ap.error("unknown kind " + kind)
        n = write(path, size, chunk)
        print("gen_kinds.py: %s %d bytes" % (path, n))


if __name__ == "__main__":
    main()
