#!/usr/bin/env python3
"""Tests of corpus/contact.py (Note: [Contact] in corpus/README.md).

usage: tests/contact_test.py TRIAGE

That the script's copies of cases are answered as `triage eval` answers them in place, that rules read
from a directory with --no-bundled answer as the bundled ones do (the bundled rules are that directory),
that a case a rule directory without the case's rule cannot answer is counted a miss, and that it refuses
a held-out path without reading it. Never reads corpus/heldout/.
"""
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "corpus", "contact.py")
TRIAGE = None
# A wild case a yaml rule answers, with its rule's file, and a healthy run.
CASE = "corpus/wild/env/roma-131-local-corr-wheel-other-torch-segfault-import"
CASE_RULE = "env/segfault-loading-module.yaml"
NEGATIVE_DIR = os.path.join(ROOT, "corpus", "wild", "negative")


def contact(*args):
    r = subprocess.run([sys.executable, SCRIPT, "--triage", TRIAGE] + list(args), capture_output=True, text=True,
                       cwd=ROOT)
    return r.returncode, r.stdout, r.stderr


def eval_line(out):
    lines = [l for l in out.splitlines() if l.startswith("eval:")]
    return lines[-1] if lines else None


class Contact(unittest.TestCase):
    def negative(self):
        names = sorted(n for n in os.listdir(NEGATIVE_DIR) if os.path.isfile(os.path.join(NEGATIVE_DIR, n, "label.yaml")))
        return os.path.join("corpus", "wild", "negative", names[0])

    def test_copies_answer_as_in_place(self):
        rc, out, err = contact(CASE, self.negative(), "--list")
        self.assertEqual(rc, 0, err)
        self.assertIn("contact: 2 case(s), answered with the build's bundled rules", out)
        self.assertIn("eval: 2 cases, top-1 100.0% (2/2)", eval_line(out))
        self.assertIn("negatives 1/1 clean", eval_line(out))
        self.assertIn("ok   " + CASE, out)

    def test_rule_directory_answers_as_bundled(self):
        rc, bundled, err = contact(CASE, self.negative())
        self.assertEqual(rc, 0, err)
        rc, from_dir, err = contact(CASE, self.negative(), "--rules-dir", os.path.join(ROOT, "rules"))
        self.assertEqual(rc, 0, err)
        self.assertEqual(eval_line(bundled), eval_line(from_dir))

    def test_case_without_its_rule_is_a_miss(self):
        with tempfile.TemporaryDirectory() as tmp:
            # a rule directory holding every family but the case's own rule
            subprocess.run(["cp", "-r", os.path.join(ROOT, "rules"), tmp], check=True)
            os.remove(os.path.join(tmp, "rules", CASE_RULE))
            rc, out, err = contact(CASE, "--rules-dir", os.path.join(tmp, "rules"), "--list")
        self.assertEqual(rc, 0, err)
        self.assertIn("top-1   0.0% (0/1)", eval_line(out))
        self.assertIn("miss " + CASE, out)

    def test_refuses_held_out_paths(self):
        rc, out, err = contact("corpus/heldout/env/any-case")
        self.assertEqual(rc, 2)
        self.assertIn("held-out split", err)
        self.assertEqual(out, "")

    def test_no_cases_is_a_usage_error(self):
        rc, out, err = contact()
        self.assertEqual(rc, 2)
        self.assertIn("no cases", err)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: tests/contact_test.py TRIAGE")
    TRIAGE = os.path.abspath(sys.argv.pop(1))
    unittest.main()
