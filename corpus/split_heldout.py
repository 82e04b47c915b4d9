#!/usr/bin/env python3
"""Moves a random share of newly added wild cases from corpus/wild/ to corpus/heldout/ and rewrites
corpus/heldout/MANIFEST.sha256 (Note: [Held-out split] in corpus/README.md).

usage: corpus/split_heldout.py --seed SEED [--fraction 0.3] CASE_DIR...

CASE_DIR are the wild cases of one collection batch (corpus/wild/<family>/<case>). Within each family
the cases are shuffled with SEED and round(fraction * n) of them (at least one for a family of three or
more) move to corpus/heldout/<family>/<case>. Run it once per batch, before anyone reads the batch to
write a rule, and commit corpus/heldout/ alone.
"""
import argparse
import hashlib
import os
import random
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HELDOUT = os.path.join(HERE, "heldout")


def write_manifest():
    lines = []
    for root, _, files in os.walk(HELDOUT):
        for name in files:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, HELDOUT)
            if rel == "MANIFEST.sha256":
                continue
            with open(path, "rb") as f:
                lines.append(f"{hashlib.sha256(f.read()).hexdigest()}  {rel}")
    lines.sort(key=lambda l: l.split("  ", 1)[1])
    with open(os.path.join(HELDOUT, "MANIFEST.sha256"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return len(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--fraction", type=float, default=0.3)
    ap.add_argument("cases", nargs="+")
    args = ap.parse_args()
    by_family = {}
    for case in sorted(os.path.normpath(c) for c in args.cases):
        family = os.path.basename(os.path.dirname(case))
        by_family.setdefault(family, []).append(case)
    rng = random.Random(args.seed)
    moved = 0
    for family in sorted(by_family):
        cases = by_family[family]
        rng.shuffle(cases)
        k = round(args.fraction * len(cases))
        if k == 0 and len(cases) >= 3:
            k = 1
        for case in cases[:k]:
            dest = os.path.join(HELDOUT, family, os.path.basename(case))
            if os.path.exists(dest):
                sys.exit(f"{dest} exists already")
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.move(case, dest)
            moved += 1
        print(f"{family:12s} {len(cases):4d} cases, {k:3d} held out")
    files = write_manifest()
    print(f"moved {moved} cases; manifest lists {files} files")


if __name__ == "__main__":
    main()
