#!/usr/bin/env python3
"""Run the wrapper-message sweep (docs/wrapper-sweep.tsv) through triage and write docs/wrapper-sweep.md.

Each row of the TSV is one message a wrapper (transformers, accelerate, Lightning, DeepSpeed, ...)
raises or logs, as read in its source at a named release, with the taxonomy category it states (`-`
when no category of rules/taxonomy.yaml fits). Every message is fed to `triage --format json -` twice:
the line alone, and inside a minimal traceback (a raised message), inside a DataLoader worker's re-raised
traceback (a data library's error raised in a Dataset's __getitem__, kind `worker`) or between ordinary
log lines (a logged one). The result is `right` (top diagnosis has the expected category), `top3` (expected
category in the first three), `wrong:<category>`, `none`, or for rows without a category `clean`
(nothing diagnosed) / `diag:<category>`.

usage: docs/wrapper_sweep.py [--triage build/triage] [--record-before [--base-rules DIR] [--unrecorded]]
  --record-before  store the results in the TSV's `before` column (rows added later: record them again)
  --unrecorded     with --record-before: record only rows whose `before` is still empty (new rows), keeping
                   the earlier rows' figures as they were recorded against their base
  --base-rules DIR with --record-before: run with only the rules in DIR (e.g. `git archive BASE rules` unpacked)
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TSV = os.path.join(HERE, "wrapper-sweep.tsv")
MD = os.path.join(HERE, "wrapper-sweep.md")
FIELDS = ["wrapper", "file", "release", "kind", "category", "message", "before"]


def inputs(row):
    line = row["message"].replace("\\n", "\n").replace("\\t", "\t")
    # `file :: source` names the line of that file the error is raised from (for torch's errors raised
    # inside a wrapper's code); otherwise the frame shows the wrapper's own raise. `file#func` names the
    # function of that frame (`check` when absent).
    path, _, source = row["file"].partition(" :: ")
    path, _, func = path.split(" (")[0].partition("#")
    path = "/usr/lib/python3.10/site-packages/" + path
    if row["kind"] == "raise":
        ctx = ("Traceback (most recent call last):\n"
               '  File "/home/user/project/train.py", line 42, in <module>\n'
               "    main()\n"
               f'  File "{path}", line 120, in {func or "check"}\n'
               f"    {source or 'raise error'}\n"
               f"{line}\n")
    elif row["kind"] == "worker":
        # a data library's error raised in a Dataset's __getitem__ inside a DataLoader worker, as the main
        # process re-raises it (the frames and lines of Debian's torch 1.13, corpus/data/worker-getitem-
        # exception); the error's class, qualified as Python prints it, names the re-raise and the worker's
        # "Caught" line. A library called from C (cv2, a library without `#func`) has no frame of its own:
        # the source line is then the Dataset's call of it (the collate_fn's, when `file` says collate).
        etype = line.split(":", 1)[0]
        # a class that cannot be built from the message alone (PyAV's errors) is re-raised as RuntimeError
        outer = "RuntimeError" if "re-raised as RuntimeError" in row["release"] else etype
        torch = "/usr/lib/python3/dist-packages/torch"
        lib = (f'  File "{path}", line 120, in {func}\n    {source or "raise error"}\n' if func else "")
        user = "image = self.load(self.paths[idx])" if func else (source or "sample = self.load(idx)")
        ctx = ("Traceback (most recent call last):\n"
               '  File "/home/user/project/train.py", line 42, in <module>\n'
               "    for batch in loader:\n"
               f'  File "{torch}/utils/data/dataloader.py", line 628, in __next__\n'
               "    data = self._next_data()\n"
               f'  File "{torch}/utils/data/dataloader.py", line 1313, in _next_data\n'
               "    return self._process_data(data)\n"
               f'  File "{torch}/utils/data/dataloader.py", line 1359, in _process_data\n'
               "    data.reraise()\n"
               f'  File "{torch}/_utils.py", line 543, in reraise\n'
               "    raise exception\n"
               f"{outer}: Caught {etype.rsplit('.', 1)[-1]} in DataLoader worker process 0.\n"
               "Original Traceback (most recent call last):\n"
               f'  File "{torch}/utils/data/_utils/worker.py", line 302, in _worker_loop\n'
               "    data = fetcher.fetch(index)\n"
               + (f'  File "{torch}/utils/data/_utils/fetch.py", line 61, in fetch\n'
                  "    return self.collate_fn(data)\n"
                  '  File "/home/user/project/dataset.py", line 52, in collate_fn\n'
                  if "collate" in row["file"] else
                  f'  File "{torch}/utils/data/_utils/fetch.py", line 58, in fetch\n'
                  "    data = [self.dataset[idx] for idx in possibly_batched_index]\n"
                  f'  File "{torch}/utils/data/_utils/fetch.py", line 58, in <listcomp>\n'
                  "    data = [self.dataset[idx] for idx in possibly_batched_index]\n"
                  '  File "/home/user/project/dataset.py", line 30, in __getitem__\n')
               + f"    {user}\n"
               f"{lib}{line}\n")
    else:
        ctx = (" 12%|#2        | 120/1000 [00:41<05:02,  2.91it/s]\n"
               f"{line}\n"
               " 13%|#3        | 130/1000 [00:44<04:59,  2.91it/s]\n")
    return line + "\n", ctx


def classify(triage, text, want, extra=()):
    out = subprocess.run([triage, *extra, "--format", "json", "-"], input=text.encode(), capture_output=True)
    try:
        cats = [d["category"] for d in json.loads(out.stdout.decode() or "{}").get("diagnoses", [])]
    except json.JSONDecodeError:
        return "error"
    if want == "-":
        return "clean" if not cats else "diag:" + cats[0]
    if not cats:
        return "none"
    if cats[0] == want:
        return "right"
    if want in cats[:3]:
        return "top3"
    return "wrong:" + cats[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--triage", default=os.path.join(HERE, "..", "build", "triage"))
    ap.add_argument("--record-before", action="store_true")
    ap.add_argument("--base-rules")
    ap.add_argument("--unrecorded", action="store_true")
    args = ap.parse_args()
    with open(TSV) as f:
        rows = [dict(zip(FIELDS, line.rstrip("\n").split("\t"))) for line in f][1:]
    for row in rows:
        row.setdefault("before", "")
    for row in rows:
        bare, ctx = inputs(row)
        row["now"] = classify(args.triage, bare, row["category"]) + " / " + classify(args.triage, ctx, row["category"])
        if args.record_before and not (args.unrecorded and row["before"]):
            extra = ("--no-bundled", "--rules", args.base_rules) if args.base_rules else ()
            row["before"] = (classify(args.triage, bare, row["category"], extra) + " / "
                             + classify(args.triage, ctx, row["category"], extra))
    if args.record_before:
        with open(TSV, "w") as f:
            for r in [dict(zip(FIELDS, FIELDS))] + rows:
                f.write("\t".join(r[k] for k in FIELDS) + "\n")
    def right(key, r, part=1):
        got = r[key].split(" / ")[part]
        return got == "right" if r["category"] != "-" else got == "clean"

    lines = ["# Wrapper messages swept through triage (issue 12)", "",
             "Generated by `docs/wrapper_sweep.py` from `docs/wrapper-sweep.tsv`; do not edit by hand.",
             "Each message was read in the wrapper's source at the release named (file path inside the package; after",
             "` :: `, the source line a torch error is raised from inside the wrapper's code), or, where the row says",
             "so, from logs quoted in public threads. Category `-`: no category of rules/taxonomy.yaml fits (healthy",
             "banners and warnings, configuration errors of the wrapper's own), and the right answer is no diagnosis.",
             "`before`: the rules of main at 706bbee8 (`--record-before --base-rules`; the last fourteen rows, Ultralytics'",
             "NaN recovery, fastai, Poutyne and mmcv's hook table, then apex's setup.py, xFormers, flash-attn and",
             "bitsandbytes' loader, against main at 11949ab5; the rows after them, from the AUTOMATIC1111 web UI to the end,",
             "the apps and libraries logs come through, against main at cfa10791 with `--unrecorded`; the data-loading libraries'",
             "rows from Pillow on, against main at 604cd97f with `--unrecorded`, and each later batch against the main of its",
             "session; the last 60, from tokenizers' untagged-enum message to the end, the libraries under and around PyTorch",
             "(tokenizers, SentencePiece, safetensors, NumPy, torchtext, torchaudio, torchvision's io and ops, xFormers, apex,",
             "torch.onnx, TorchScript, torch.fx and torch.export, TRL, PEFT, llama.cpp's converter), against main at 061c3251),",
             "`now`: this tree's rules.",
             "Results: the line alone / inside a minimal traceback (raised), inside a DataLoader worker's re-raised traceback",
             "(the TSV's kind `worker`: an error a Dataset's __getitem__ or collate_fn raises) or between log lines (logged):",
             "`right`, `top3`, `wrong:<category>`, `none`; rows whose message fits no category: `clean` or `diag:<category>`.",
             "", "| wrapper | messages | right alone, before -> now | right in context, before -> now |", "|---|---|---|---|"]
    by = {}
    for r in rows:
        b = by.setdefault(r["wrapper"], [0, 0, 0, 0, 0])
        b[0] += 1
        b[1] += right("before", r, 0)
        b[2] += right("now", r, 0)
        b[3] += right("before", r)
        b[4] += right("now", r)
    tot = [sum(v[i] for v in by.values()) for i in range(5)]
    for k, (n, b0, a0, b1, a1) in list(by.items()) + [("all", tot)]:
        lines.append(f"| {k} | {n} | {b0} -> {a0} | {b1} -> {a1} |")
    lines += ["", "| wrapper | file | release | message | category | before | now |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        msg = r["message"].replace("|", "\\|")
        lines.append(f"| {r['wrapper']} | `{r['file']}` | {r['release']} | `{msg}` | {r['category']} | {r['before']} | {r['now']} |")
    with open(MD, "w") as f:
        f.write("\n".join(lines) + "\n")
    for r in rows:
        if not (right("now", r) and right("now", r, 0)):
            print(f"{r['wrapper']:12} {r['now']:28} {r['message'][:110]}")
    print("right alone / in context now:", tot[2], "/", tot[4], "of", len(rows), file=sys.stderr)


if __name__ == "__main__":
    main()
