#!/usr/bin/python3
"""Builds the rule sets of the throughput sweep and the matching pattern files for ripgrep.

usage: tests/bench/make_rulesets.py RULES_DIR OUT_DIR N [N...]

For each N, OUT_DIR/rN/ holds N rules: the first N bundled rules (sorted by path) when there are that
many, else every bundled rule plus synthesised variants. A variant is a copy of a bundled rule whose
every message pattern becomes `(?:P)|(?:Q)`, P its own pattern and Q the pattern of another bundled rule
with its named groups made plain (RE2 refuses duplicate group names): two real PyTorch wordings per
pattern, so a variant set reuses the vocabulary of the bundled rules (what grows is the number of
patterns in the RE2::Set and in ripgrep's regex, not the set of words a log line must hold).
OUT_DIR/rN.pat holds the same message patterns for `rg -f`, one per line, with named groups made plain
and a `\n` outside character classes made a space (ripgrep refuses both in a line-oriented search), and
non-ASCII characters written as byte escapes (`--no-unicode` refuses them as such).
"""
import glob
import os
import re
import shutil
import sys

import yaml


def patterns_of(rule):
    msg = (rule.get("match") or {}).get("message")
    if msg is None:
        return []
    return [msg] if isinstance(msg, str) else list(msg)


def unnamed(p):
    return re.sub(r"\(\?P<\w+>", "(?:", p)


def ascii_only(p):
    """`rg --no-unicode` refuses a non-ASCII character in a pattern ("Unicode not allowed here"): each
    byte of its UTF-8 becomes a \\xHH escape, which then matches that byte."""
    return "".join(c if ord(c) < 128 else "".join("\\x%02X" % b for b in c.encode("utf-8")) for c in p)


def line_oriented(p):
    """ripgrep searches line by line and refuses a pattern that can match '\\n' outside a character
    class (a multi-line message): such a newline becomes a space. Character classes keep theirs."""
    out, depth, i = [], 0, 0
    while i < len(p):
        c = p[i]
        if c == "\\" and i + 1 < len(p):
            out.append(" " if p[i + 1] == "n" and depth == 0 else p[i:i + 2])
            i += 2
            continue
        if c == "[":
            depth += 1
        elif c == "]" and depth:
            depth -= 1
        out.append(c)
        i += 1
    return "".join(out)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    rules_dir, out_dir, sizes = sys.argv[1], sys.argv[2], [int(n) for n in sys.argv[3:]]
    files = sorted(f for f in glob.glob(os.path.join(rules_dir, "**", "*.yaml"), recursive=True)
                   if os.path.basename(f) != "taxonomy.yaml")
    rules = []
    for f in files:
        with open(f) as fh:
            rule = yaml.safe_load(fh)
        if isinstance(rule, dict) and patterns_of(rule):
            rules.append((f, rule))
    os.makedirs(out_dir, exist_ok=True)
    for n in sizes:
        d = os.path.join(out_dir, "r%d" % n)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        pats = []
        for i in range(n):
            path, rule = rules[i % len(rules)]
            stem = os.path.splitext(os.path.basename(path))[0]
            lua = os.path.splitext(path)[0] + ".lua"
            if i < len(rules):
                rid, new = stem, rule
            else:
                k = i // len(rules)
                rid = "%s-synth%d" % (stem, k)
                other = patterns_of(rules[(i + 7 * k) % len(rules)][1])[0]
                new = dict(rule)
                new["id"] = rid
                new["match"] = dict(rule["match"])
                new["match"]["message"] = ["(?:%s)|(?:%s)" % (p, unnamed(other)) for p in patterns_of(rule)]
            with open(os.path.join(d, rid + ".yaml"), "w") as fh:
                yaml.safe_dump(new, fh, sort_keys=False, allow_unicode=True)
            if os.path.exists(lua):
                shutil.copy(lua, os.path.join(d, rid + ".lua"))
            pats.extend(patterns_of(new))
        with open(os.path.join(out_dir, "r%d.pat" % n), "w") as fh:
            # ripgrep joins the lines into one regex, where repeated group names are an error; plain
            # groups match the same text.
            fh.write("\n".join(ascii_only(line_oriented(unnamed(p))) for p in pats) + "\n")
        print("make_rulesets.py: %s: %d rules, %d patterns" % (d, n, len(pats)))


if __name__ == "__main__":
    main()
