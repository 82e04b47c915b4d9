#!/usr/bin/python3
"""Builds the rule sets of the throughput sweep and the matching pattern files for ripgrep.

usage: tests/bench/make_rulesets.py [--variants words|alternation] RULES_DIR OUT_DIR N [N...]

For each N, OUT_DIR/rN/ holds the signal rules (rules/signals/, which read metric series; copied as they
are into every set, so metric signatures are on at every N, as they are by default) and N message rules:
the first N other bundled rules with message patterns (sorted by path) when there are that many, else
every one of them plus synthesised variants, copies of bundled rules (their Lua, advice and examples
kept) under new ids with new message patterns:

- `words` (the default): each pattern keeps its regex syntax, but about half of its literal words of
  four letters or more (at least one) become other words of the bundled patterns' vocabulary, drawn by
  a generator seeded with the variant's id: `CUDA out of memory. Tried to allocate` may become `CUDA
  out of gradient. Tried to allocate`. Like the rule families of a real set (one wording per device,
  library or version), a variant shares much of its vocabulary with other rules, has required literals
  of its own, and matches a line its original matches only by chance; the prefilter's keywords, the
  RE2::Set and ripgrep's regex grow with N.
- `alternation` (the sweep's generator until 2026-11-28): every pattern P becomes `(?:P)|(?:Q)`, Q the
  pattern of another bundled rule with its named groups made plain (RE2 refuses duplicate group
  names). Each variant matches every text its original matches, so at 1000 rules each failure is
  matched, captured and scored (Lua included) by four rules instead of one, and no new word enters the
  prefilter: it measures duplicated hits as much as rule count.

OUT_DIR/rN.pat holds the same message patterns for `rg -f`, one per line, with named groups made plain
and a `\n` outside character classes made a space (ripgrep refuses both in a line-oriented search), and
non-ASCII characters written as byte escapes (`--no-unicode` refuses them as such).
"""
import glob
import os
import random
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
    """`rg --no-unicode` refuses a non-ASCII character in a pattern ("Unicode not allowed here"), written
    as itself or as an escape (`\\x{FF1A}`): each byte of its UTF-8 becomes a \\xHH escape, which then
    matches that byte."""
    def utf8_bytes(c):
        return "".join("\\x%02X" % b for b in c.encode("utf-8"))

    out, i = [], 0
    while i < len(p):
        m = re.match(r"\\x\{([0-9A-Fa-f]+)\}", p[i:])
        if m and int(m.group(1), 16) >= 128:
            out.append(utf8_bytes(chr(int(m.group(1), 16))))
            i += m.end()
        elif p[i] == "\\" and i + 1 < len(p):  # any other escape, an escaped backslash included
            out.append(p[i:i + 2])
            i += 2
        else:
            out.append(p[i])
            i += 1
    p = "".join(out)
    return "".join(c if ord(c) < 128 else utf8_bytes(c) for c in p)


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


def literal_words(p):
    """Yields (start, end) of each run of ASCII letters of `p` that the regex matches literally: not
    inside a character class, an escape (`\\w`, `\\p{Greek}`, `\\x{41}`), a group's syntax (`(?P<name>`,
    `(?i)`, `(?:`) or a repetition count."""
    i, n = 0, len(p)
    while i < n:
        c = p[i]
        if c == "\\":
            i += 2
            if i <= n and p[i - 1] in "pPx" and i < n and p[i] == "{":
                i = p.index("}", i) + 1
            continue
        if c == "[":
            i += 1
            if i < n and p[i] == "^":
                i += 1
            if i < n and p[i] == "]":
                i += 1
            while i < n and p[i] != "]":
                i += 2 if p[i] == "\\" else 1
            i += 1
            continue
        if c == "(" and p.startswith("(?", i):
            m = re.match(r"\(\?(?:P<\w+>|[a-zA-Z]*:|[a-zA-Z]*\))", p[i:])
            i += len(m.group(0)) if m else 2
            continue
        if c == "{":
            m = re.match(r"\{\d*(?:,\d*)?\}", p[i:])
            if m:
                i += len(m.group(0))
                continue
        if c.isascii() and c.isalpha():
            j = i
            while j < n and p[j].isascii() and p[j].isalpha():
                j += 1
            yield i, j
            i = j
            continue
        i += 1


def vocabulary(patterns):
    """The literal words of `patterns` written in lower case, of 4 to 12 letters (words of prose, not
    identifiers such as exception names), sorted."""
    return sorted({p[a:b] for p in patterns for a, b in literal_words(p) if 4 <= b - a <= 12 and p[a:b].islower()})


def reworded(p, vocab, rng):
    """`p` with about half of its literal words of four letters or more (at least one, when it has any)
    replaced by words of `vocab`, each written in the case of the word it replaces."""
    spans = [(a, b) for a, b in literal_words(p) if b - a >= 4]
    if not spans:
        return p
    chosen = [s for s in spans if rng.random() < 0.5] or [rng.choice(spans)]
    out, last = [], 0
    for a, b in chosen:
        old = p[a:b]
        new = rng.choice([w for w in vocab if w != old.lower()])
        if old.isupper():
            new = new.upper()
        elif old[0].isupper():
            new = new[0].upper() + new[1:]
        out.append(p[last:a])
        out.append(new)
        last = b
    out.append(p[last:])
    return "".join(out)


def main():
    args = sys.argv[1:]
    mode = "words"
    if args[:1] == ["--variants"] and len(args) > 1:
        mode, args = args[1], args[2:]
    if len(args) < 3 or mode not in ("words", "alternation"):
        sys.exit(__doc__)
    rules_dir, out_dir, sizes = args[0], args[1], [int(n) for n in args[2:]]
    files = sorted(f for f in glob.glob(os.path.join(rules_dir, "**", "*.yaml"), recursive=True)
                   if os.path.basename(f) != "taxonomy.yaml")
    signals_dir = os.path.join(rules_dir, "signals") + os.sep
    rules, signals = [], []
    for f in files:
        with open(f) as fh:
            rule = yaml.safe_load(fh)
        if f.startswith(signals_dir):
            signals.append(f)
        elif isinstance(rule, dict) and patterns_of(rule):
            rules.append((f, rule))
    vocab = vocabulary([p for _, rule in rules for p in patterns_of(rule)])
    os.makedirs(out_dir, exist_ok=True)
    for n in sizes:
        d = os.path.join(out_dir, "r%d" % n)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        pats = []
        for f in signals:
            for src in (f, os.path.splitext(f)[0] + ".lua"):
                if os.path.exists(src):
                    shutil.copy(src, d)
            with open(f) as fh:
                pats.extend(patterns_of(yaml.safe_load(fh) or {}))
        for i in range(n):
            path, rule = rules[i % len(rules)]
            stem = os.path.splitext(os.path.basename(path))[0]
            lua = os.path.splitext(path)[0] + ".lua"
            if i < len(rules):
                rid, new = stem, rule
            else:
                k = i // len(rules)
                rid = "%s-synth%d" % (stem, k)
                new = dict(rule)
                new["id"] = rid
                new["match"] = dict(rule["match"])
                if mode == "alternation":
                    other = patterns_of(rules[(i + 7 * k) % len(rules)][1])[0]
                    new["match"]["message"] = ["(?:%s)|(?:%s)" % (p, unnamed(other)) for p in patterns_of(rule)]
                else:
                    rng = random.Random(rid)
                    new["match"]["message"] = [reworded(p, vocab, rng) for p in patterns_of(rule)]
            with open(os.path.join(d, rid + ".yaml"), "w") as fh:
                yaml.safe_dump(new, fh, sort_keys=False, allow_unicode=True)
            if os.path.exists(lua):
                shutil.copy(lua, os.path.join(d, rid + ".lua"))
            pats.extend(patterns_of(new))
        with open(os.path.join(out_dir, "r%d.pat" % n), "w") as fh:
            # ripgrep joins the lines into one regex, where repeated group names are an error; plain
            # groups match the same text.
            fh.write("\n".join(ascii_only(line_oriented(unnamed(p))) for p in pats) + "\n")
        print("make_rulesets.py: %s: %d rules and %d signal rules, %d patterns" % (d, n, len(signals), len(pats)))


if __name__ == "__main__":
    main()
