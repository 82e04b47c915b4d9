#!/usr/bin/env python3
"""Fits rule priors (`confidence:`) to how often each rule's top-1 answer is right on the wild tuning
split (Note: [Prior fit] in corpus/README.md). Never reads corpus/heldout/.

usage: corpus/fit_priors.py [--triage build/triage] [--strength 3] [--min-cases 2] [--skip PREFIX]... [--write]

For every case under corpus/wild/ whose labelled category is in rules/taxonomy.yaml (a case labelled
with a category the taxonomy does not have yet cannot be answered by any rule, and would only punish
the rule that answered it), the script runs `triage --format json` and records the top-1 diagnosis:
its rule, its confidence and whether its category is the label (or one of `also`). For each rule
that gave at least --min-cases top-1 answers it computes

    target = (right + strength * mean_conf) / (answers + strength)

(the observed accuracy, shrunk toward the confidence the rule already reports, as if `strength`
more answers had been right exactly that often) and scales the rule's prior by target / mean_conf,
so the exception-type, specificity and Lua factors applied after the prior keep their relative
effect. Priors are clipped to [0.40, 0.97] and rounded to 0.01; a change under 0.02 is left alone.
Without --write it prints the table; with --write it rewrites the `confidence:` line of each YAML.
Rules written wholly in Lua are reported, not rewritten, and so are rules whose category starts with
a --skip prefix (a family someone else is tuning: `--skip amp. --skip compile.`); their answers still
count, since they decide which rule is top-1.
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WILD = os.path.join(HERE, "wild")
RULES = os.path.join(ROOT, "rules")


def taxonomy_categories():
    text = open(os.path.join(RULES, "taxonomy.yaml"), encoding="utf-8").read()
    return set(re.findall(r"^  ([a-z0-9_]+\.[a-z0-9_]+):", text, re.M))


def label_of(case_dir):
    text = open(os.path.join(case_dir, "label.yaml"), encoding="utf-8").read()
    category = re.search(r"^category:\s*(\S+)", text, re.M).group(1)
    also = re.search(r"^also:\s*\[([^\]]*)\]", text, re.M)
    accepted = {category}
    if also:
        accepted |= {a.strip() for a in also.group(1).split(",") if a.strip()}
    return category, accepted


def wild_cases():
    """Yields (case_dir, category, accepted categories) for every case of the wild tuning split."""
    for family in sorted(os.listdir(WILD)):
        family_dir = os.path.join(WILD, family)
        if not os.path.isdir(family_dir):
            continue
        for case in sorted(os.listdir(family_dir)):
            case_dir = os.path.join(family_dir, case)
            category, accepted = label_of(case_dir)
            yield case_dir, category, accepted


def top1(triage, log):
    out = subprocess.run([triage, "--format", "json", log], capture_output=True, text=True).stdout
    try:
        diagnoses = json.loads(out)["diagnoses"]
    except (ValueError, KeyError):
        return None
    return diagnoses[0] if diagnoses else None


def rule_files():
    files = {}
    for root, _, names in os.walk(RULES):
        for name in names:
            if name.endswith(".yaml") and name != "taxonomy.yaml" and name != "triage.yaml":
                files[name[:-5]] = os.path.join(root, name)
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--triage", default=os.path.join(ROOT, "build", "triage"))
    ap.add_argument("--strength", type=float, default=3.0)
    ap.add_argument("--min-cases", type=int, default=2)
    ap.add_argument("--skip", action="append", default=[], metavar="PREFIX",
                    help="leave rules whose category starts with PREFIX unchanged (repeatable)")
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()

    known = taxonomy_categories()
    answers = {}  # rule -> list of (confidence, right)
    for case_dir, category, accepted in wild_cases():
        if category == "none" or category not in known:
            continue
        d = top1(args.triage, os.path.join(case_dir, "log.txt"))
        if d is None:
            continue
        answers.setdefault(d["rule"], []).append((d["confidence"], d["category"] in accepted))

    files = rule_files()
    changes = 0
    print(f"{'rule':44s} {'n':>3s} {'right':>5s} {'conf':>5s} {'prior':>5s} {'fitted':>6s}")
    for rule in sorted(answers):
        got = answers[rule]
        n = len(got)
        right = sum(1 for _, ok in got if ok)
        mean_conf = sum(c for c, _ in got) / n
        path = files.get(rule)
        text = open(path, encoding="utf-8").read() if path else ""
        m = re.search(r"^confidence:\s*([0-9.]+)", text, re.M)
        cat = re.search(r"^category:\s*(\S+)", text, re.M)
        skipped = bool(cat) and any(cat.group(1).startswith(p) for p in args.skip)
        prior = float(m.group(1)) if m else 0.8
        target = (right + args.strength * mean_conf) / (n + args.strength)
        fitted = min(0.97, max(0.40, round(prior * target / mean_conf, 2)))
        mark = ""
        if n >= args.min_cases and abs(fitted - prior) >= 0.02:
            if skipped:
                mark = "  (--skip: not rewritten)"
            elif not path:
                mark = "  (Lua rule: not rewritten)"
            elif not m:
                mark = "  (no confidence: line: not rewritten)"
            else:
                mark = "  *"
                changes += 1
                if args.write:
                    text = text[:m.start(1)] + f"{fitted:.2f}".rstrip("0").rstrip(".") + text[m.end(1):]
                    open(path, "w", encoding="utf-8").write(text)
        print(f"{rule:44s} {n:3d} {right:5d} {mean_conf:5.2f} {prior:5.2f} {fitted:6.2f}{mark}")
    print(f"{changes} prior(s) {'rewritten' if args.write else 'would change (use --write)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
