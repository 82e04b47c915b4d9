#!/usr/bin/env python3
"""Fits rule priors (`confidence:`) on the wild tuning split (Note: [Prior fit] in corpus/README.md).
Never reads corpus/heldout/.

usage: corpus/fit_priors.py [--triage build/triage] [--strength 3] [--min-cases 2] [--skip PREFIX]...
                            [--rank [--max-move 0.15] [--min-gain 2]] [--cv K [--seed 0]] [--write]

Accuracy fit (the default). For every case under corpus/wild/ whose labelled category is in
rules/taxonomy.yaml (a case labelled with a category the taxonomy does not have yet cannot be answered
by any rule, and would only punish the rule that answered it), the script runs `triage --format json`
and records the top-1 diagnosis: its rule, its confidence and whether its category is the label (or one
of `also`). For each rule that gave at least --min-cases top-1 answers it computes

    target = (right + strength * mean_conf) / (answers + strength)

(the observed accuracy, shrunk toward the confidence the rule already reports, as if `strength`
more answers had been right exactly that often) and scales the rule's prior by target / mean_conf,
so the exception-type, specificity and Lua factors applied after the prior keep their relative
effect. Priors are clipped to [0.40, 0.97] and rounded to 0.01; a change under 0.02 is left alone.
It looks at top-1 answers only: it never asks whether a lower-ranked candidate was the right one, so a
change can reorder candidates and lose top-1 or top-3 answers.

Rank-aware fit (--rank). Reads every candidate of every wild tuning case (a run with no calibration
map and no threshold, and one with every prior x0.9 that tells, per candidate, whether its confidence
follows its rule's prior or is set by the rule's Lua), and simulates the ranker: each candidate's
confidence scaled by its rule's new prior over the old, two rules that matched one error as specifically
trading places (and the x0.8) when their priors cross, the calibration map, the abstention threshold,
masked causes at 0.2x. Then, from the current priors:
  1. rank step: a coordinate search over the rules that take part in a contest (the right category's
     candidate outranked, or first by less than x1.25): each rule's prior may move up to --max-move
     (0.15); a move is taken only when it gains at least --min-gain (2) top-1 answers on the cases it
     touches and loses no top-1 or top-3 answer; among the priors that gain most, the one closest to the
     current prior, then up to 0.02 further inside that range (a margin, not a knife edge);
  2. calibration step: the accuracy fit above, computed on the simulated top-1 answers, rule by rule
     (most answers first), each change kept only when the simulation loses no top-1 and no top-3
     answer on the wild tuning split.
Rules that are not rewritten (--skip, below) still take part as competitors. Cross-validated against
the accuracy fit (--cv, Note: [Prior fit]) the two tied on 2026-11-30, so the accuracy fit stays the
default; --rank is for the run where the accuracy fit would lose answers (the script says so).

Both modes print the table of changes and measure them: the script writes the new priors into a
temporary copy of rules/ (never into rules/ without --write) and runs triage on every wild tuning
case, before and after, and prints top-1 and top-3 (cases labelled `none` count as right when
nothing is diagnosed, as in `triage eval`). --write rewrites the `confidence:` line of each YAML.
Rules whose category starts with a --skip prefix (a family someone else is tuning: `--skip amp.
--skip compile.`) are reported, not rewritten; their answers still count, since they decide which rule
is top-1.

--cv K (no writing): K-fold cross-validation of both procedures on the wild tuning split (the folds
from a shuffle of the cases, --seed picks it). For each fold each procedure is fitted on the other K-1 folds from the current priors,
the calibration map is refitted on those folds (corpus/fit_calibration.py's fit), and triage is run
with those priors and that map; the held-back fold's top-1, top-3 and expected calibration error are
printed per fold and in total, with the current priors and map as the reference (those were fitted on
every fold, so that row is in-sample).
"""
import argparse
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WILD = os.path.join(HERE, "wild")
RULES = os.path.join(ROOT, "rules")
THRESHOLD = 0.35     # the default abstention threshold (`--min-confidence`, Ranking step 7)
MASKED_FACTOR = 0.2  # kMaskedFactor in engine/src/diagnose/ranker.cc (Ranking step 8)
LOW, HIGH = 0.40, 0.97
# The ranking note of the second of two candidates that matched one error as specifically (Ranking step 3):
# their order there is their confidence's, and the second takes x0.8. Ties further down are not modelled.
# Ranking's cap on a warning's reading when the input also shows a failure (RankWarningsBelowFailures in
# engine/src/diagnose/ranker.cc): the note it leaves, and its factor (kIncidentalWarning).
WARNING_CAP = re.compile(r"Confidence lowered to x0\.9 of the \S+ diagnosis, to rank below it: this is a warning")
INCIDENTAL_WARNING = 0.9
TIE = re.compile(r"Confidence lowered \(x0\.8\): rule (\S+) matched the same error as specifically")


def taxonomy_categories():
    text = read(os.path.join(RULES, "taxonomy.yaml"))
    return set(re.findall(r"^  ([a-z0-9_]+\.[a-z0-9_]+):", text, re.M))


def label_of(case_dir):
    text = read(os.path.join(case_dir, "label.yaml"))
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


def fixed_after_calibration(rule):
    """Whether an answer's confidence is set after the calibration map, so that neither the priors nor the
    map may be fitted to it: a frame-evidence answer (Note: [Frame evidence] in rules/README.md)."""
    return rule.startswith("frames:")


def run_all(triage, logs, bundled=None, min_confidence=None):
    """The diagnoses of each log (one triage process for all of them: JSON Lines, in input order)."""
    env = dict(os.environ)
    if bundled:
        env["TRIAGE_BUNDLED_RULES"] = bundled
    cmd = [triage, "--format", "json"]
    if min_confidence is not None:
        cmd += ["--min-confidence", str(min_confidence)]
    out = subprocess.run(cmd + list(logs), capture_output=True, text=True, env=env).stdout.splitlines()
    if len(out) != len(logs):
        sys.exit(f"triage answered {len(out)} of {len(logs)} logs")
    got = []
    for log, line in zip(logs, out):
        o = json.loads(line)
        if not log.endswith(o["source"]) and not o["source"].endswith(log):
            sys.exit(f"triage answered {o['source']} for {log}")
        # A similar-case answer (Note: [Similar known case] in engine/src/diagnose/similar_case.cc) is
        # left out: on a corpus log it would come from the case itself (triage leaves a case out only
        # under `triage eval`), and its confidence is fixed after calibration, so it has nothing to fit.
        incidents = o.get("incidents", [])
        kept = []
        for x in o["diagnoses"]:
            if x["rule"].startswith("similar:"):
                continue
            i = x.get("incident", -1)
            inc = incidents[i] if isinstance(i, int) and 0 <= i < len(incidents) else None
            x["_kind"] = incident_kind(inc)
            kept.append(x)
        got.append(kept)
    return got


def incident_kind(inc):
    """'warning', 'signal' or 'failure' (None without an incident), as RankWarningsBelowFailures tells them
    (engine/src/diagnose/ranker.cc, Note: [Incidental warnings]): a warning's exception type ends in
    "Warning" in its last dotted component."""
    if inc is None:
        return None
    if inc.get("kind") == "signal":
        return "signal"
    return "warning" if (inc.get("exception") or "").rsplit(".", 1)[-1].endswith("Warning") else "failure"


def rule_files(rules=RULES):
    files = {}
    for root, _, names in os.walk(rules):
        for name in names:
            if name.endswith(".yaml") and name != "taxonomy.yaml" and name != "triage.yaml" and name != "calibration.yaml":
                files[name[:-5]] = os.path.join(root, name)
    return files


def read_priors(files):
    """rule -> (prior, category) for every rule file with a `confidence:` line."""
    priors = {}
    for rule, path in files.items():
        text = read(path)
        m = re.search(r"^confidence:\s*([0-9.]+)", text, re.M)
        cat = re.search(r"^category:\s*(\S+)", text, re.M)
        if m:
            priors[rule] = (float(m.group(1)), cat.group(1) if cat else "")
    return priors


def masked_categories(files):
    """rule -> the categories its hypotheses name (`category:` under `hypotheses:`), in file order: the
    masked causes its diagnosis adds (Ranking step 8 in rules/README.md)."""
    out = {}
    for rule, path in files.items():
        m = re.search(r"^hypotheses:\n(.*?)(?=^\S|\Z)", read(path), re.M | re.S)
        if m:
            out[rule] = re.findall(r"^    category:\s*(\S+)", m.group(1), re.M)
    return out


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def write_priors(rules_dir, changes):
    """Rewrites the `confidence:` line of each rule in `changes` (rule -> prior) under rules_dir."""
    files = rule_files(rules_dir)
    for rule, value in changes.items():
        path = files[rule]
        text = read(path)
        m = re.search(r"^confidence:\s*([0-9.]+)", text, re.M)
        write(path, text[:m.start(1)] + f"{value:.2f}".rstrip("0").rstrip(".") + text[m.end(1):])


def read_knots(path):
    text = read(path)
    return [(float(a), float(b)) for a, b in re.findall(r"^\s*- \[([0-9.]+),\s*([0-9.]+)\]", text, re.M)]


def interpolate(pts, p):
    """The calibration map as the ranker applies it (linear between knots); no map: p itself."""
    if not pts:
        return p
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        if p <= x1:
            return y0 + (y1 - y0) * (p - x0) / (x1 - x0)
    return pts[-1][1]


# ----- the accuracy fit (the default procedure) -----

def accuracy_fit(answers, priors, strength, min_cases):
    """answers: rule -> [(calibrated confidence, right)] of its top-1 answers. Returns rule -> (n, right,
    mean confidence, prior, fitted) for every rule that answered; fitted == prior when left alone."""
    rows = {}
    for rule, got in answers.items():
        n = len(got)
        right = sum(1 for _, ok in got if ok)
        mean_conf = sum(c for c, _ in got) / n
        prior = priors[rule][0] if rule in priors else 0.8
        target = (right + strength * mean_conf) / (n + strength)
        fitted = prior
        if mean_conf > 0:
            fitted = min(HIGH, max(LOW, round(prior * target / mean_conf, 2)))
        if n < min_cases or abs(fitted - prior) < 0.02 or rule not in priors:
            fitted = prior
        rows[rule] = (n, right, mean_conf, prior, fitted)
    return rows


# ----- the ranking simulator (the rank-aware fit) -----

class Case:
    """One wild tuning case: its label and every candidate triage listed for it."""

    def __init__(self, name, category, accepted):
        self.name = name
        self.negative = category == "none"
        self.known = True
        self.accepted = accepted
        self.cands = []   # (rule, category, confidence before calibration, elasticity), ranked
        self.masked = []  # (rule the masked cause comes from, its category), in the order shown
        self.masked_of = {}  # rule -> the masked categories it names: those shown first, then its file's others
        self.ties = []    # (rule, the rule ahead of it as specifically on the same error): Ranking step 3
        self.incident = {}  # rule -> the incident its candidate is on (triage's JSON `incident`)
        self.kind = {}      # rule -> its incident's kind: incident_kind()
        self.capped = set()  # warnings' rules whose confidence the collecting run already capped


def collect(triage, cases):
    """Case objects for (case_dir, category, accepted) triples: candidates from a run without the map
    and without a threshold, and how each candidate's confidence follows its rule's prior (a run with
    every prior x0.9). Masked causes are read from the ordinary run as well (one run without a threshold
    hides those whose category a weak candidate has)."""
    logs = [os.path.join(d, "log.txt") for d, _, _ in cases]
    with tempfile.TemporaryDirectory(prefix="fit_priors_") as tmp:
        plain = os.path.join(tmp, "plain")
        shutil.copytree(RULES, plain, ignore=shutil.ignore_patterns("calibration.yaml"))
        base = run_all(triage, logs, plain, 0)
        scaled_dir = os.path.join(tmp, "scaled")
        shutil.copytree(plain, scaled_dir)
        write_priors(scaled_dir, {r: p * 0.9 for r, (p, _) in read_priors(rule_files(scaled_dir)).items()})
        scaled = run_all(triage, logs, scaled_dir, 0)
    shown = run_all(triage, logs)
    known = taxonomy_categories()
    named = masked_categories(rule_files())
    out = []
    for (d, category, accepted), b, s, o in zip(cases, base, scaled, shown):
        c = Case(os.path.relpath(d, WILD), category, accepted)
        c.known = category == "none" or category in known
        after = {(x["rule"], x.get("from_hypothesis")): x["confidence"] for x in s}
        for x in b:
            if x.get("from_hypothesis"):
                continue
            p0, p1 = x["confidence"], after.get((x["rule"], None))
            e = 1.0
            if p1 is not None and p0 >= 0.05:
                e = min(1.5, max(0.0, math.log(max(p1, 1e-3) / p0) / math.log(0.9)))
                e = 1.0 if abs(e - 1) < 0.15 else 0.0 if abs(e) < 0.15 else e
            c.cands.append((x["rule"], x["category"], p0, e))
            c.incident[x["rule"]] = x.get("incident", 0)
            c.kind[x["rule"]] = x.get("_kind")
            if WARNING_CAP.search(x.get("ranking", "")):
                c.capped.add(x["rule"])
            tie = TIE.search(x.get("ranking", ""))
            if tie:
                c.ties.append((x["rule"], tie.group(1)))
        seen = set()
        for x in b + o:
            if x.get("from_hypothesis") and (x["rule"], x["category"]) not in seen:
                seen.add((x["rule"], x["category"]))
                c.masked.append((x["rule"], x["category"]))
        # A rule's masked causes that the run did not show (another rule's diagnosis had the category, the
        # more confident one shows it, or a diagnosis of that category was listed) become visible when
        # priors move. Each rule's list is its file's order, unless the run showed them in another order (a
        # `first:` that holds moved them ahead): then those, then the rest.
        # Only a category the run had elsewhere (a diagnosis, another rule's masked cause) counts as hidden
        # by the dedup; a hypothesis not shown for another reason stays out.
        elsewhere = {x[1] for x in c.cands} | {cat for _, cat in c.masked}
        for rule in {x[0] for x in c.cands}:
            shown = [cat for r, cat in c.masked if r == rule]
            filed = [cat for cat in named.get(rule, []) if cat in shown or cat in elsewhere]
            in_file = [cat for cat in filed if cat in shown]
            c.masked_of[rule] = filed if in_file == shown else shown + [cat for cat in filed if cat not in shown]
        out.append(c)
    return out


def rank(case, new, old, knots):
    """The simulated ranking of one case, best first: [(calibrated confidence, category, rule, masked?,
    confidence before calibration)]."""
    pres, moved = [], []
    for rule, cat, pre, e in case.cands:
        ratio = (new[rule] / old[rule]) ** e if rule in new and new[rule] != old[rule] else 1.0
        pres.append(pre * ratio)
        moved.append(ratio)
    index = {x[0]: i for i, x in enumerate(case.cands)}
    for second, first in case.ties:  # the second overtakes the first: the x0.8 changes hands
        i, j = index[second], index.get(first)
        # (confidences are read to three decimals: a margin, and only when their priors moved apart)
        if j is not None and moved[i] > moved[j] and pres[i] / 0.8 > pres[j] * 1.002:
            pres[i], pres[j] = pres[i] / 0.8, pres[j] * 0.8
    # Exact ties. Two candidates whose confidences follow their priors (elasticity 1) and are the same
    # multiple of them tie exactly once their priors are equal, and the ranker (engine/src/diagnose/ranker.cc,
    # before_calibration) then puts the lower incident first, then the lower rule id. Read to three decimals,
    # the simulated values only come close, so such a pair is set equal and ordered as the ranker orders it.
    tied = {}
    for i, (ri, _, pi, ei) in enumerate(case.cands):
        for j in range(i + 1, len(case.cands)):
            rj, _, pj, ej = case.cands[j]
            if (ei == 1.0 and ej == 1.0 and ri in new and rj in new and ri in old and rj in old and
                    new[ri] == new[rj] and old[ri] > 0 and old[rj] > 0 and
                    abs(pi / old[ri] - pj / old[rj]) <= 0.0005 / old[ri] + 0.0005 / old[rj] and
                    moved[i] != moved[j]):
                pres[j] = pres[i]
                tied[i] = tied[j] = True
    # A warning's reading of another category than the best failure reading that clears the threshold is
    # capped at x0.9 of that failure's (Note: [Incidental warnings] in ranker.cc). A warning the collecting
    # run had already capped keeps no value of its own to scale: it is taken as still above the cap.
    def calibrated(i):
        return pres[i] if fixed_after_calibration(case.cands[i][0]) else interpolate(knots, pres[i])
    failure = None
    for i, (rule, _, _, _) in enumerate(case.cands):
        if case.kind.get(rule) == "failure" and calibrated(i) >= THRESHOLD and (failure is None or pres[i] > pres[failure]):
            failure = i
    if failure is not None:
        cap = pres[failure] * INCIDENTAL_WARNING
        for i, (rule, cat, _, _) in enumerate(case.cands):
            if case.kind.get(rule) == "warning" and cat != case.cands[failure][1] and (pres[i] > cap or rule in case.capped):
                pres[i] = cap
    scored = []
    for i, (p, (rule, cat, _, _)) in enumerate(zip(pres, case.cands)):
        c = p if fixed_after_calibration(rule) else interpolate(knots, p)
        if c >= THRESHOLD:
            order = (case.incident.get(rule, 0), rule) if i in tied else (-1, str(i).zfill(6))
            scored.append((p, order, c, cat, rule))
    scored.sort(key=lambda t: (-t[0], t[1]))
    shown = [(c, cat, rule, False, p) for p, _, c, cat, rule in scored]
    present = {s[1] for s in shown}
    # Each diagnosis, most confident first, adds the masked causes its rule names whose category no
    # diagnosis has and no more confident diagnosis added (of two rules naming one category, the more
    # confident wins).
    masked = {}
    for c, _, rule, _, p in list(shown):
        for cat in case.masked_of.get(rule, [c2 for r, c2 in case.masked if r == rule]):
            if cat not in present and cat not in masked:
                masked[cat] = (c * MASKED_FACTOR, cat, rule, True, p * MASKED_FACTOR)
    shown += list(masked.values())
    shown.sort(key=lambda t: -t[0])  # stable: masked causes follow the diagnoses they tie with
    return shown


def score(case, shown):
    """(top-1 right, top-3 right) as `triage eval` counts them."""
    if case.negative:
        return (not shown, not shown)
    return (bool(shown) and shown[0][1] in case.accepted, any(s[1] in case.accepted for s in shown[:3]))


def totals(cases, new, old, knots):
    t1 = t3 = 0
    for c in cases:
        a, b = score(c, rank(c, new, old, knots))
        t1 += a
        t3 += b
    return t1, t3


def simulated_answers(cases, new, old, knots):
    """rule -> [(calibrated confidence, right)] of the simulated top-1 answers (the accuracy fit's input)."""
    answers = {}
    for c in cases:
        if c.negative or not c.known:
            continue
        shown = rank(c, new, old, knots)
        if shown and not shown[0][3]:
            answers.setdefault(shown[0][2], []).append((shown[0][0], shown[0][1] in c.accepted))
    return answers


def contests(cases, new, old, knots, ratio=1.25):
    """The rules that take part in a contest: in a case whose right category is outranked, or first by
    less than x`ratio` (confidences before calibration) over a wrong one, every rule among the first
    candidates down to the right one."""
    rules = set()
    for c in cases:
        if c.negative or not c.known:
            continue
        shown = [s for s in rank(c, new, old, knots) if not s[3]]
        right = [k for k, s in enumerate(shown) if s[1] in c.accepted]
        if not right:
            continue
        k = right[0]
        if k > 0:
            rules |= {s[2] for s in shown[:k + 1]}
        elif len(shown) > 1:
            wrong = next((s for s in shown[1:] if s[1] not in c.accepted), None)
            if wrong and shown[0][4] < ratio * wrong[4]:
                rules |= {shown[0][2], wrong[2]}
    return rules


def rank_fit(cases, priors, knots, rewritable, strength, min_cases, max_move=0.15, min_gain=2, passes=3):
    """The rank-aware fit (steps 1 and 2 of the docstring). Returns rule -> new prior (all rules)."""
    old = {r: p for r, (p, _) in priors.items()}
    new = dict(old)
    touches = {}
    for c in cases:
        for rule in {x[0] for x in c.cands} | {m[0] for m in c.masked}:
            touches.setdefault(rule, []).append(c)

    def local(rule, value):
        trial = dict(new)
        trial[rule] = value
        return totals(touches.get(rule, []), trial, old, knots)

    for _ in range(passes):  # step 1
        moved = False
        for rule in sorted(contests(cases, new, old, knots) & rewritable):
            base1, base3 = local(rule, new[rule])
            grid = [round(v / 100, 2) for v in range(int(round(LOW * 100)), int(round(HIGH * 100)) + 1)
                    if abs(v / 100 - old[rule]) <= max_move + 1e-9]
            res = {v: local(rule, v) for v in grid}
            ok = {v: t1 - base1 for v, (t1, t3) in res.items() if t1 - base1 >= min_gain and t3 >= base3}
            if not ok:
                continue
            best = max(ok.values())
            good = sorted(v for v, g in ok.items() if g == best)
            v = min(good, key=lambda x: (abs(x - old[rule]), x))
            step = 0.01 if v > new[rule] else -0.01
            for _ in range(2):  # a margin inside the range that gains
                w = round(v + step, 2)
                if w in ok and ok[w] == best:
                    v = w
            new[rule] = v
            moved = True
        if not moved:
            break
    t1, t3 = totals(cases, new, old, knots)  # step 2
    rows = accuracy_fit(simulated_answers(cases, new, old, knots), priors, strength, min_cases)
    for rule, (n, _, _, _, _) in sorted(rows.items(), key=lambda kv: (-kv[1][0], kv[0])):
        if rule not in rewritable:
            continue
        # the accuracy fit scales the rule's prior as it is now (after step 1)
        n, right, mean_conf, _, _ = rows[rule]
        target = (right + strength * mean_conf) / (n + strength)
        fitted = min(HIGH, max(LOW, round(new[rule] * target / mean_conf, 2))) if mean_conf > 0 else new[rule]
        if n < min_cases or abs(fitted - new[rule]) < 0.02:
            continue
        trial = dict(new)
        trial[rule] = fitted
        a1, a3 = totals(cases, trial, old, knots)
        if a1 >= t1 and a3 >= t3:
            new, t1, t3 = trial, a1, a3
    return new


# ----- measuring a set of priors with triage itself -----

def measured(triage, cases, changes, tmp, refit_from=None):
    """Runs triage on `cases` with `changes` (rule -> prior) written into a copy of rules/. With
    refit_from (a list of cases), the calibration map of the copy is first refitted on those cases'
    top-1 answers as corpus/fit_calibration.py does. Returns the diagnoses of each case."""
    import fit_calibration  # its answers, fit and text: one piece of code for the map
    copy = tempfile.mkdtemp(prefix="rules_", dir=tmp)
    shutil.rmtree(copy)
    shutil.copytree(RULES, copy)
    write_priors(copy, changes)
    if refit_from is not None:
        os.remove(os.path.join(copy, "calibration.yaml"))
        got = fit_calibration.answers(triage, copy, refit_from)
        a, b = fit_calibration.fit(got)
        write(os.path.join(copy, "calibration.yaml"), fit_calibration.map_text(a, b, len(got)))
    logs = [os.path.join(d, "log.txt") for d, _, _ in cases]
    return run_all(triage, logs, copy)


def figures(cases, diagnoses):
    """(top-1, top-3, [(confidence, right)] of the positive cases' top-1 answers) as `triage eval` counts."""
    t1 = t3 = 0
    answers = []
    for (d, category, accepted), ds in zip(cases, diagnoses):
        if category == "none":
            t1 += not ds
            t3 += not ds
            continue
        t1 += bool(ds) and ds[0]["category"] in accepted
        t3 += any(x["category"] in accepted for x in ds[:3])
        if ds:
            answers.append((ds[0]["confidence"], ds[0]["category"] in accepted))
    return t1, t3, answers


def top1_answers(cases, diagnoses, known):
    answers = {}
    for (d, category, accepted), ds in zip(cases, diagnoses):
        if category == "none" or category not in known or not ds:
            continue
        answers.setdefault(ds[0]["rule"], []).append((ds[0]["confidence"], ds[0]["category"] in accepted))
    return answers


def fit(args, rank_mode, cases, sim, shown, priors, rewritable, knots, known):
    """One procedure on `cases` (their Case objects `sim`, their ordinary diagnoses `shown`): the
    changed priors, rule -> prior."""
    if rank_mode:
        new = rank_fit(sim, priors, knots, rewritable, args.strength, args.min_cases, args.max_move, args.min_gain)
        return {r: v for r, v in new.items() if v != priors[r][0]}
    rows = accuracy_fit(top1_answers(cases, shown, known), priors, args.strength, args.min_cases)
    return {r: row[4] for r, row in rows.items() if row[4] != row[3] and r in rewritable}


def cross_validate(args, cases, priors, rewritable, knots, known):
    from fit_calibration import ece
    sim = collect(args.triage, cases)
    shown = run_all(args.triage, [os.path.join(d, "log.txt") for d, _, _ in cases])
    order = list(range(len(cases)))
    random.Random(args.seed).shuffle(order)
    folds = [sorted(order[k::args.cv]) for k in range(args.cv)]
    procedures = (("current priors and map (in-sample)", None), ("accuracy fit (default)", False),
                  ("rank-aware fit (--rank)", True))
    rows = {name: [] for name, _ in procedures}
    moved = {name: [] for name, _ in procedures}
    with tempfile.TemporaryDirectory(prefix="fit_priors_cv_") as tmp:
        for test in folds:
            held = set(test)
            train = [i for i in range(len(cases)) if i not in held]
            tr_cases = [cases[i] for i in train]
            te_cases = [cases[i] for i in test]
            for name, rank_mode in procedures:
                if rank_mode is None:
                    rows[name].append(figures(te_cases, [shown[i] for i in test]))
                    continue
                changes = fit(args, rank_mode, tr_cases, [sim[i] for i in train], [shown[i] for i in train],
                              priors, rewritable, knots, known)
                moved[name].append(len(changes))
                rows[name].append(figures(te_cases, measured(args.triage, te_cases, changes, tmp, tr_cases)))
    print(f"{args.cv}-fold cross-validation on the wild tuning split ({len(cases)} cases, shuffle seed {args.seed}; "
          "each procedure fitted on the other folds from the current priors, the map refitted on them, the "
          "held-back fold scored by triage)")
    print(f"  {'procedure':36s} {'fold':>4s} {'n':>4s} {'top-1':>6s} {'top-3':>6s} {'ECE':>6s} {'priors moved':>12s}")
    for name, per in rows.items():
        all_answers = []
        for k, (t1, t3, ans) in enumerate(per):
            all_answers += ans
            mv = f"{moved[name][k]:12d}" if moved[name] else ""
            print(f"  {name:36s} {k + 1:4d} {len(folds[k]):4d} {t1:6d} {t3:6d} {ece(ans):6.3f} {mv}")
        t1 = sum(r[0] for r in per)
        t3 = sum(r[1] for r in per)
        print(f"  {name:36s} {'all':>4s} {len(cases):4d} {t1:6d} {t3:6d} {ece(all_answers):6.3f}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--triage", default=os.path.join(ROOT, "build", "triage"))
    ap.add_argument("--strength", type=float, default=3.0)
    ap.add_argument("--min-cases", type=int, default=2)
    ap.add_argument("--skip", action="append", default=[], metavar="PREFIX",
                    help="leave rules whose category starts with PREFIX unchanged (repeatable)")
    ap.add_argument("--rank", action="store_true", help="the rank-aware fit (see above)")
    ap.add_argument("--max-move", type=float, default=0.15, help="--rank: largest move of a prior in step 1")
    ap.add_argument("--min-gain", type=int, default=2, help="--rank: top-1 answers a move of step 1 must gain")
    ap.add_argument("--cv", type=int, default=0, metavar="K", help="K-fold cross-validation of both procedures")
    ap.add_argument("--seed", type=int, default=0, help="--cv: the seed of the shuffle that makes the folds")
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()

    known = taxonomy_categories()
    files = rule_files()
    priors = read_priors(files)
    rewritable = {r for r, (_, cat) in priors.items() if not any(cat.startswith(p) for p in args.skip)}
    knots = read_knots(os.path.join(RULES, "calibration.yaml"))
    cases = list(wild_cases())
    if args.cv:
        return cross_validate(args, cases, priors, rewritable, knots, known)

    logs = [os.path.join(d, "log.txt") for d, _, _ in cases]
    shown = run_all(args.triage, logs)
    sim = collect(args.triage, cases) if args.rank else None
    changes = fit(args, args.rank, cases, sim, shown, priors, rewritable, knots, known)
    rows = accuracy_fit(top1_answers(cases, shown, known), priors, args.strength, args.min_cases)
    print(f"{'rule':44s} {'n':>3s} {'right':>5s} {'conf':>5s} {'prior':>5s} {'fitted':>6s}")
    for rule in sorted(set(rows) | set(changes)):
        n, right, mean_conf, prior, _ = rows.get(rule, (0, 0, 0.0, priors[rule][0], 0))
        fitted = changes.get(rule, prior)
        mark = "  *" if rule in changes else ""
        if rule not in changes and rule in rows and rows[rule][4] != prior:
            mark = "  (--skip: not rewritten)" if rule not in rewritable else "  (kept: the fit would lose answers)"
        print(f"{rule:44s} {n:3d} {right:5d} {mean_conf:5.2f} {prior:5.2f} {fitted:6.2f}{mark}")
    with tempfile.TemporaryDirectory(prefix="fit_priors_") as tmp:
        b1, b3, _ = figures(cases, shown)
        a1, a3, _ = figures(cases, measured(args.triage, cases, changes, tmp))
        m1, m3, _ = figures(cases, measured(args.triage, cases, changes, tmp, cases))
    n = len(cases)
    print(f"wild tuning, triage with the current priors: top-1 {b1}/{n}, top-3 {b3}/{n}; with the fitted ones: "
          f"top-1 {a1}/{n}, top-3 {a3}/{n} (current map), top-1 {m1}/{n}, top-3 {m3}/{n} (map refitted)")
    if (a1 < b1 or a3 < b3 or m1 < b1 or m3 < b3) and not args.rank:
        print("the fit loses wild tuning answers (the ratchets of tests/corpus_eval_test.cc may fail): "
              "--rank keeps every answer")
    if args.write:
        write_priors(RULES, changes)
    print(f"{len(changes)} prior(s) {'rewritten' if args.write else 'would change (use --write)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
