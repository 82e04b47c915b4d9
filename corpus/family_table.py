#!/usr/bin/env python3
"""Prints, per group of categories, how `triage` does on the corpus cases of those categories, and where
each case came from: the table of issue 21's closing note, made by a script rather than by hand.

usage: corpus/family_table.py [--triage build/triage] [--cases] [GROUP=PREFIX[,PREFIX...]]...

Without GROUP arguments the groups are the PyTorch 2.x families of issue 21 (compile.*, amp.*,
attention.*, the 2.x distributed categories, checkpoint.shared_tensors, the 2.x env categories,
device.mps_*). A case belongs to a group when its labelled category starts with one of the group's
prefixes. For each group and split (ours, wild, heldout: the folder names of Note: [Eval splits]) the
table gives n, top-1 and top-3 as `triage eval` scores them (the label's category or one of `also`
among the first one or three diagnoses), and under "neg" how many negative cases (label `none`, any
split) got a first diagnosis in the group: those must be 0. With --cases it lists every case with its
split, its answer and its provenance: the `source` URL of a wild case, or the `source` (PyTorch file and
release) of a formatted one, or `produced_by` of a real one.

Held-out cases are run and scored like every other case (that is all `triage eval` does with them too);
this script reads their label.yaml, never their logs, and nothing here tunes a rule.
"""
import argparse
import collections
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from fit_priors import label_of  # noqa: E402  (one reader of label.yaml's category and `also`)

DEFAULT_GROUPS = [
    ("compile", ["compile."]),
    ("amp", ["amp."]),
    ("attention", ["attention."]),
    ("distributed 2.x", ["distributed.fsdp_", "distributed.nccl_setup", "distributed.dtensor_mixed_tensor"]),
    ("checkpoint.shared_tensors", ["checkpoint.shared_tensors"]),
    ("env 2.x", ["env.numpy_abi", "env.cuda_library"]),
    ("device.mps", ["device.mps_"]),
]
SPLITS = ("ours", "wild", "heldout")


def split_of(case_dir):
    parts = os.path.relpath(case_dir, HERE).split(os.sep)
    return "heldout" if "heldout" in parts else "wild" if "wild" in parts else "ours"


def field(case_dir, name):
    """The one-line value of a top-level label.yaml key, or ''."""
    for line in open(os.path.join(case_dir, "label.yaml"), encoding="utf-8"):
        if line.startswith(name + ":"):
            return line.split(":", 1)[1].strip().strip("'\"")
    return ""


def provenance(case_dir):
    kind = field(case_dir, "provenance")
    where = field(case_dir, "source") or field(case_dir, "produced_by")
    return f"{kind}: {where}" if where else kind


def answers(triage, log):
    out = subprocess.run([triage, "--format", "json", log], capture_output=True, text=True).stdout
    try:
        # similar-case answers are left out: on a corpus log triage would find the case itself (only
        # `triage eval` leaves it out; Note: [Similar known case] in engine/src/diagnose/similar_case.cc)
        return [d["category"] for d in json.loads(out)["diagnoses"] if not d["rule"].startswith("similar:")][:3]
    except (ValueError, KeyError):
        sys.exit(f"triage gave no JSON report for {log}")


def cases():
    for root, dirs, files in os.walk(HERE):
        dirs.sort()
        if "label.yaml" in files and "log.txt" in files:
            yield root


def group_of(category, groups):
    for name, prefixes in groups:
        if any(category.startswith(p) for p in prefixes):
            return name
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--triage", default=os.path.join(ROOT, "build", "triage"))
    ap.add_argument("--cases", action="store_true", help="list every case with its answer and provenance")
    ap.add_argument("groups", nargs="*", help="NAME=PREFIX[,PREFIX...]")
    args = ap.parse_args()
    groups = [(g.split("=", 1)[0], g.split("=", 1)[1].split(",")) for g in args.groups] or DEFAULT_GROUPS

    stats = collections.defaultdict(lambda: [0, 0, 0])  # (group, split) -> n, top1, top3
    negatives = collections.Counter()                    # group -> negatives answered in it
    negatives_total = 0
    rows = []
    for case in cases():
        category, accepted = label_of(case)
        split = split_of(case)
        if category == "none":
            got = answers(args.triage, os.path.join(case, "log.txt"))
            negatives_total += 1
            hit = group_of(got[0], groups) if got else None
            if hit:
                negatives[hit] += 1
                rows.append((hit, split, os.path.relpath(case, HERE), "NEGATIVE DIAGNOSED " + got[0], provenance(case)))
            continue
        group = group_of(category, groups)
        if not group:
            continue
        got = answers(args.triage, os.path.join(case, "log.txt"))
        top1 = bool(got) and got[0] in accepted
        top3 = any(g in accepted for g in got)
        s = stats[(group, split)]
        s[0] += 1
        s[1] += top1
        s[2] += top3
        mark = "top-1" if top1 else "top-3" if top3 else "miss: " + (", ".join(got) or "nothing")
        rows.append((group, split, os.path.relpath(case, HERE), mark, provenance(case)))

    print(f"{'group':26s} {'split':8s} {'n':>4s} {'top-1':>11s} {'top-3':>11s} {'neg':>4s}")
    totals = collections.defaultdict(lambda: [0, 0, 0])
    for name, _ in groups:
        for split in SPLITS + ("all",):
            if split == "all":
                n, t1, t3 = (sum(stats[(name, s)][i] for s in SPLITS) for i in range(3))
            else:
                n, t1, t3 = stats[(name, split)]
                for i, v in enumerate((n, t1, t3)):
                    totals[split][i] += v
            if n == 0:
                continue
            neg = str(negatives[name]) if split == "all" else ""
            print(f"{name:26s} {split:8s} {n:4d} {t1:4d} {100.0 * t1 / n:5.1f}% {t3:4d} {100.0 * t3 / n:5.1f}% {neg:>4s}")
    for split in SPLITS:
        n, t1, t3 = totals[split]
        if n:
            print(f"{'all groups':26s} {split:8s} {n:4d} {t1:4d} {100.0 * t1 / n:5.1f}% {t3:4d} {100.0 * t3 / n:5.1f}%")
    n, t1, t3 = (sum(totals[s][i] for s in SPLITS) for i in range(3))
    print(f"{'all groups':26s} {'all':8s} {n:4d} {t1:4d} {100.0 * t1 / n:5.1f}% {t3:4d} {100.0 * t3 / n:5.1f}%")
    print(f"negatives: {negatives_total} cases, {sum(negatives.values())} diagnosed with a category of these groups")
    if args.cases:
        print()
        for row in sorted(rows):
            print(" | ".join(row))


if __name__ == "__main__":
    main()
