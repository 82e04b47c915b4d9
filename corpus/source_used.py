#!/usr/bin/env python3
"""Says whether a thread is already a corpus case, so a collector never adds a held-out thread again.

usage: corpus/source_used.py URL...

For each URL prints `URL<TAB>SPLIT...` where SPLIT is `wild`, `heldout` or `ours` for each case whose
label.yaml names that source, or `new`. It compares URLs after dropping the scheme, a trailing slash and
any `#fragment`/`?query`, and it prints nothing else: no case name, no log, no label (the held-out
split stays unread, Note: [Held-out split] in corpus/README.md). Exit status 0 when every URL is new,
1 otherwise.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def key(url):
    url = re.sub(r"^[a-z]+://", "", url.strip().strip("'\""))
    url = re.split(r"[#?]", url, maxsplit=1)[0]
    return url.rstrip("/").lower()


def cases():
    """(case folder relative to corpus/, split, source key) for every `source:` line of every case."""
    for root, _, files in os.walk(HERE):
        if "label.yaml" not in files:
            continue
        case = os.path.relpath(root, HERE)
        top = case.split(os.sep)[0]
        split = top if top in ("wild", "heldout") else "ours"
        with open(os.path.join(root, "label.yaml"), encoding="utf-8", errors="replace") as f:
            for line in f:
                m = re.match(r"source:\s*(\S+)", line)
                if m:
                    yield case, split, key(m.group(1))


def sources():
    found = {}
    for _, split, k in cases():
        found.setdefault(k, set()).add(split)
    return found


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    found = sources()
    status = 0
    for url in argv[1:]:
        splits = sorted(found.get(key(url), ()))
        if splits:
            status = 1
        print(f"{url}\t{' '.join(splits) if splits else 'new'}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
