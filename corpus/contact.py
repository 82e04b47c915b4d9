#!/usr/bin/env python3
"""First and second contact: how rules as they stood at one commit answer cases added after it
(Note: [Contact] in corpus/README.md). Never reads corpus/heldout/.

usage: corpus/contact.py [--triage build/triage] [--since REV [--until REV]]
                         [--rules-at REV | --rules-dir DIR] [--list] [CASE_DIR...]

Cases: the CASE_DIRs given (each a folder holding label.yaml and log.txt), and with --since REV every
case folder whose label.yaml was added to corpus/ between REV and --until (default HEAD; git), ours
and wild splits only (a case added then and removed since is skipped). Rules: by default the build's bundled rules (what HEAD answers); --rules-at REV loads rules/ as
it was at REV (git archive) instead, with --no-bundled, so a case is answered by the rules written
before it was found; --rules-dir DIR loads another rule directory the same way.

What it measures is the generalisation a batch's paragraph reports: `--since REV --rules-at REV` is
the first contact of every case added since REV (rules blind to them), `--since REV` alone is the
same cases after the work. Only the rules go back in time: the engine (readers, ranking) is the
build's, so a reader change made since REV counts as if it had been there. Prints `triage eval`'s
summary (split, family, totals) and its miss lines for the cases; with --list, one line per case.
Exit status: triage eval's (0 unless the cases could not be read), 2 on a usage or git error.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
HELDOUT = os.path.join(HERE, "heldout")


def fail(msg):
    print("contact.py: " + msg, file=sys.stderr)
    sys.exit(2)


def git(*args):
    r = subprocess.run(["git", "-C", ROOT] + list(args), capture_output=True, text=True)
    if r.returncode != 0:
        fail("git %s: %s" % (" ".join(args), r.stderr.strip() or "failed"))
    return r.stdout


def added_since(rev, until):
    """Case folders (relative to ROOT) whose label.yaml was added between rev and until."""
    out = git("diff", "--name-only", "--diff-filter=A", rev, until, "--", "corpus")
    cases = []
    for path in out.splitlines():
        if not path.endswith("/label.yaml") or path.startswith("corpus/heldout/"):
            continue
        if os.path.isfile(os.path.join(ROOT, path)):
            cases.append(os.path.dirname(path))
    return sorted(cases)


def family_of(case_dir):
    """The family folder a case sits in (corpus/wild/<family>/<case>, corpus/<family>/<case>)."""
    return os.path.basename(os.path.dirname(os.path.abspath(case_dir)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", nargs="*", metavar="CASE_DIR")
    ap.add_argument("--triage", default=os.path.join(ROOT, "build", "triage"))
    ap.add_argument("--since", metavar="REV", help="add every case added to corpus/ since REV")
    ap.add_argument("--until", metavar="REV", default="HEAD", help="with --since: added up to REV (default HEAD)")
    rules = ap.add_mutually_exclusive_group()
    rules.add_argument("--rules-at", metavar="REV", help="answer with rules/ as it was at REV")
    rules.add_argument("--rules-dir", metavar="DIR", help="answer with this rule directory, no bundled rules")
    ap.add_argument("--list", action="store_true", help="one line per case: expected, answered")
    a = ap.parse_args()

    case_dirs = [os.path.relpath(os.path.abspath(c), ROOT) for c in a.cases]
    if a.since:
        case_dirs += added_since(a.since, a.until)
    case_dirs = sorted(set(case_dirs))
    for c in case_dirs:
        full = os.path.join(ROOT, c)
        if os.path.commonpath([os.path.abspath(full), HELDOUT]) == HELDOUT:
            fail("%s is in the held-out split, which this script never reads" % c)
        if not os.path.isfile(os.path.join(full, "label.yaml")):
            fail("%s: no label.yaml (a case folder holds label.yaml and log.txt)" % c)
    if not case_dirs:
        fail("no cases: give CASE_DIRs or --since REV")
    if not os.access(a.triage, os.X_OK):
        fail("%s is not an executable triage (build it, or give --triage)" % a.triage)

    with tempfile.TemporaryDirectory(prefix="triage-contact-") as tmp:
        # triage eval reads DIR/<family>/<case>/; copies, since it does not follow links to folders
        names = set()
        for c in case_dirs:
            name = os.path.basename(c)
            if name in names:
                fail("two cases named %s" % name)
            names.add(name)
            shutil.copytree(os.path.join(ROOT, c), os.path.join(tmp, "cases", family_of(c), name))
        cmd = [a.triage, "eval", os.path.join(tmp, "cases")]
        if a.rules_at:
            archive = subprocess.run(["git", "-C", ROOT, "archive", a.rules_at, "rules"], capture_output=True)
            if archive.returncode != 0:
                fail("git archive %s rules: %s" % (a.rules_at, archive.stderr.decode(errors="replace").strip()))
            subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
            cmd += ["--no-bundled", "--rules", os.path.join(tmp, "rules")]
        elif a.rules_dir:
            cmd += ["--no-bundled", "--rules", os.path.abspath(a.rules_dir)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        out = r.stdout.replace(os.path.join(tmp, "cases") + "/", "")
        what = "rules at %s" % a.rules_at if a.rules_at else (
            "rules in %s" % a.rules_dir if a.rules_dir else "the build's bundled rules")
        print("contact: %d case(s), answered with %s" % (len(case_dirs), what))
        keep = False
        for line in out.splitlines():
            if line.startswith("by split") or line.startswith("by family") or line.startswith("misses"):
                keep = True
            if keep or line.startswith("eval"):
                print(line)
        if a.list:
            missed = {l.split(":")[0].strip() for l in out.splitlines() if l.startswith("  ") and ": expected " in l}
            for c in case_dirs:
                rel = "%s/%s" % (family_of(c), os.path.basename(c))
                print("%s %s" % ("miss" if rel in missed else "ok  ", c))
        if r.stderr:
            sys.stderr.write(r.stderr)
        return r.returncode


if __name__ == "__main__":
    sys.exit(main())
