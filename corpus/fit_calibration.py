#!/usr/bin/env python3
"""Fits the global calibration map (rules/calibration.yaml) to the wild tuning split (Note: [Calibration
map] in rules/README.md). Never reads corpus/heldout/.

usage: corpus/fit_calibration.py [--triage build/triage] [--write]

The rule priors (corpus/fit_priors.py) make each rule's confidence match how often that rule is right;
the factors applied after the prior (exception type, specificity, incident, signature folding) and the
rules with too few wild answers to fit leave the final confidence biased as a whole. This script
measures that bias and removes it with one monotone map applied by the ranker to every final confidence.

It runs triage (without any calibration map: a copy of rules/ without calibration.yaml is passed as the
bundled rules) on every corpus/wild/ case that is not a negative, and keeps each top-1 answer's
confidence p and whether its category is the label (or one of `also`), except the answers whose
confidence is set after the map (frame evidence: `fixed_after_calibration` in fit_priors.py). It then fits logistic
calibration, p' = 1 / (1 + exp(-(a * logit(p) + b))), by maximum likelihood (Newton's method) — two
parameters, so ~300 answers fit it without following their noise, and the map is strictly increasing, so
it never reorders or ties two candidates. The map is written as knots at p = 0.05, 0.10, ..., 0.95 plus
the ends 0 -> 0 and 1 -> 1; the ranker interpolates linearly between knots. Without --write the script
prints a, b, the knots and the reliability table before and after (same bins as `triage eval`). The
"after" table is in-sample; the script also prints the 5-fold cross-validated ECE (each fifth of the
answers mapped by a fit on the other four, fixed shuffle), the estimate of how the map does on wild
logs it was not fitted on, still without reading corpus/heldout/.
"""
import random
import argparse
import math
import os
import shutil
import sys
import tempfile

from fit_priors import fixed_after_calibration, interpolate, run_all, wild_cases

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RULES = os.path.join(ROOT, "rules")
MAP = os.path.join(RULES, "calibration.yaml")
EDGES = [0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01]  # the bins of `triage eval`'s reliability table


def answers(triage, bundled, cases=None):
    """(confidence, right) of each top-1 answer on the positive cases (default: the wild tuning split)."""
    cases = [c for c in (wild_cases() if cases is None else cases) if c[1] != "none"]
    got = []
    for (case_dir, category, accepted), diagnoses in zip(cases, run_all(
            triage, [os.path.join(c[0], "log.txt") for c in cases], bundled)):
        # an answer whose confidence is fixed after the map says nothing about the map
        if diagnoses and not fixed_after_calibration(diagnoses[0].get("rule", "")):
            got.append((diagnoses[0]["confidence"], diagnoses[0]["category"] in accepted))
    return got


def logit(p):
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def fit(got):
    """Maximum-likelihood a, b of p' = sigmoid(a * logit(p) + b) (Newton's method on the log-loss)."""
    a, b = 1.0, 0.0
    for _ in range(100):
        ga = gb = haa = hab = hbb = 0.0
        for p, right in got:
            x = logit(p)
            q = 1 / (1 + math.exp(-(a * x + b)))
            r = q - (1.0 if right else 0.0)
            w = q * (1 - q)
            ga += r * x
            gb += r
            haa += w * x * x
            hab += w * x
            hbb += w
        det = haa * hbb - hab * hab
        if det <= 0:
            break
        da = (hbb * ga - hab * gb) / det
        db = (haa * gb - hab * ga) / det
        a, b = a - da, b - db
        if abs(da) < 1e-9 and abs(db) < 1e-9:
            break
    return a, b


def apply(a, b, p):
    return 1 / (1 + math.exp(-(a * logit(p) + b)))


def knots(a, b):
    pts = [(0.0, 0.0)]
    pts += [(k / 20, round(apply(a, b, k / 20), 4)) for k in range(1, 20)]
    pts.append((1.0, 1.0))
    return pts


def ece(got):
    total = 0.0
    for lo, hi in zip(EDGES, EDGES[1:]):
        bucket = [(p, r) for p, r in got if lo <= p < hi]
        if bucket:
            acc = sum(r for _, r in bucket) / len(bucket)
            mean = sum(p for p, _ in bucket) / len(bucket)
            total += len(bucket) / len(got) * abs(acc - mean)
    return total


def cross_validated_ece(got, folds=5, seed=0):
    order = list(range(len(got)))
    random.Random(seed).shuffle(order)
    mapped = []
    for k in range(folds):
        train = [got[i] for j, i in enumerate(order) if j % folds != k]
        a, b = fit(train)
        mapped += [(apply(a, b, got[i][0]), got[i][1]) for i in order[k::folds]]
    return ece(mapped)


def table(got, title):
    print(f"{title}:")
    print(f"  {'confidence':12s} {'n':>5s} {'accuracy':>9s} {'mean conf':>9s}")
    for lo, hi in zip(EDGES, EDGES[1:]):
        bucket = [(p, r) for p, r in got if lo <= p < hi]
        if not bucket:
            continue
        acc = sum(r for _, r in bucket) / len(bucket)
        mean = sum(p for p, _ in bucket) / len(bucket)
        print(f"  {lo:.2f}-{min(hi, 1.0):.2f}    {len(bucket):5d} {100 * acc:8.1f}% {mean:9.2f}")
    print(f"  expected calibration error {ece(got):.3f}")


def map_text(a, b, n):
    """The text of rules/calibration.yaml for the fitted a, b (n: the answers they were fitted on)."""
    return ("# The global calibration map (Note: [Calibration map] in rules/README.md), written by\n"
            "# corpus/fit_calibration.py --write from the wild tuning split; do not edit by hand.\n"
            f"# Logistic calibration fitted on {n} top-1 answers: a = {a:.4f}, b = {b:.4f}.\n"
            "# Each knot is [confidence before, confidence after]; the ranker interpolates linearly.\n"
            "knots:\n" + "".join(f"  - [{x:.2f}, {y:.4f}]\n" for x, y in knots(a, b)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--triage", default=os.path.join(ROOT, "build", "triage"))
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="fit_calibration_") as tmp:
        bundled = os.path.join(tmp, "rules")
        shutil.copytree(RULES, bundled, ignore=shutil.ignore_patterns("calibration.yaml"))
        got = answers(args.triage, bundled)
    a, b = fit(got)
    pts = knots(a, b)
    print(f"{len(got)} top-1 answers on wild positive cases; fitted a = {a:.4f}, b = {b:.4f}")
    table(got, "before (no map)")
    table([(interpolate(pts, p), r) for p, r in got], "after (the knots below; in-sample)")
    print(f"5-fold cross-validated expected calibration error {cross_validated_ece(got):.3f}")
    text = map_text(a, b, len(got))
    if args.write:
        open(MAP, "w", encoding="utf-8").write(text)
        print(f"wrote {os.path.relpath(MAP, ROOT)}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
