#!/usr/bin/env python3
"""Wild tuning cases that share a thread with a held-out case (Note: [Shared threads] in corpus/README.md).

usage: tests/heldout_threads.py                  the check (ctest: Corpus.HeldoutThreads)
       tests/heldout_threads.py --independent TRIAGE
                                                 the held-out figure without the shared threads

A wild case whose `source:` is also a held-out case's can teach the held-out case's cause to whoever tunes
on it. corpus/heldout_shared_threads.txt lists the wild side of every such pair known (wild case folders,
never a held-out one). The check fails when another wild case shares a thread with a held-out case (drop
it: `corpus/source_used.py URL` says `heldout` for its thread) or when a listed case no longer does
(take it off the list). It prints wild case names only; the held-out split is read for its `source:`
lines alone, as corpus/source_used.py reads it.

--independent copies the held-out cases whose thread no wild case shares into a temporary `heldout`
folder, runs `TRIAGE eval` on it and prints only its summary lines: the generalisation figure on threads
nothing was tuned on.
"""
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "corpus")
LIST = os.path.join(CORPUS, "heldout_shared_threads.txt")

_spec = importlib.util.spec_from_file_location("source_used", os.path.join(CORPUS, "source_used.py"))
source_used = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(source_used)


def shared_cases(split):
    """The case folders of `split` (wild or heldout) whose thread is also a case of the other split."""
    shared = {k for k, splits in source_used.sources().items() if "wild" in splits and "heldout" in splits}
    return {case for case, s, k in source_used.cases() if s == split and k in shared}


def check():
    wild_side = sorted(shared_cases("wild"))
    with open(LIST, encoding="utf-8") as f:
        listed = sorted(line.strip() for line in f if line.strip() and not line.startswith("#"))
    new = sorted(set(wild_side) - set(listed))
    gone = sorted(set(listed) - set(wild_side))
    for case in new:
        print(f"{case}: shares its thread with a held-out case; drop it (corpus/source_used.py says heldout)")
    for case in gone:
        print(f"{case}: listed in corpus/heldout_shared_threads.txt but shares no thread with a held-out case now")
    if new or gone:
        return 1
    print(f"{len(wild_side)} wild cases share a thread with a held-out case, all of them the listed ones")
    return 0


def independent(triage):
    left_out = shared_cases("heldout")
    kept = 0
    with tempfile.TemporaryDirectory() as tmp:
        for case in sorted({case for case, s, _ in source_used.cases() if s == "heldout"} - left_out):
            shutil.copytree(os.path.join(CORPUS, case), os.path.join(tmp, case))
            kept += 1
        out = subprocess.run([triage, "eval", tmp], capture_output=True, text=True).stdout
    print(f"held-out cases on threads no wild case shares: {kept} ({len(left_out)} left out)")
    for line in out.splitlines():
        if line.startswith("eval"):
            print(line)
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--independent":
        sys.exit(independent(sys.argv[2]))
    if len(sys.argv) != 1:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    sys.exit(check())
