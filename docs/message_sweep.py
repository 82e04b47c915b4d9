#!/usr/bin/env python3
"""Feed every message of docs/message-sweep.tsv through `triage -`, alone and inside a minimal
traceback (or log), and print one row per message with the top-1 category each way.

Usage: docs/message_sweep.py [--triage build/triage] [--tsv docs/message-sweep.tsv] [--markdown]
                             [--baseline DIR]   (DIR: a rules/ tree to compare with, e.g. main's)
The TSV's columns are described in its header lines (\\n in a message is a line break, \\t at the
start of a line a tab). Result codes: `right` (top-1 category is the expected one), `wrong:<category>`,
`none` (no diagnosis), `quiet` (expected `-`/`?` and no diagnosis), `diag:<category>` (expected `-`/`?`,
something was diagnosed).
"""
import argparse
import json
import re
import subprocess
import sys

# the frame line a user's own code would show, per area
CALLER = {
    "loss": "loss = criterion(outputs, labels)",
    "data": "for step, batch in enumerate(train_loader):",
    "memory": "outputs = model(inputs)",
    "training": "optimizer.step()",
    "numerics": "loss.backward()",
    "index": "outputs = model(input_ids)",
    "amp": "scaler.step(optimizer)",
    "shape": "outputs = model(inputs)",
    "dtype": "outputs = model(inputs)",
    "autograd": "loss.backward()",
    "device": "outputs = model(inputs.to(device))",
    "cuda": "outputs = model(inputs)",
    "distributed": "train(local_rank, args)",
    "env": "from models import build_model",
    "checkpoint": "model = load_model(args.checkpoint)",
    "compile": "out = compiled_model(batch)",
    "attention": "outputs = model(inputs)",
    "mps": "outputs = model(inputs)",
}


def render(area, kind, exc, msg):
    """Return (alone, in_context) texts for one message."""
    caller = CALLER.get(area, "main()")
    tb = ("Traceback (most recent call last):\n"
          '  File "/home/user/project/train.py", line 88, in <module>\n'
          "    main()\n"
          '  File "/home/user/project/train.py", line 61, in main\n'
          f"    {caller}\n")
    if kind == "exc":
        line = f"{exc}: {msg}"
        return line + "\n", tb + line + "\n"
    if kind == "load":
        # raised while torch.load's reader unpickles the file: the traceback passes through
        # torch/serialization.py, whose frames tell a checkpoint apart from other pickle readers
        line = f"{exc}: {msg}"
        lib = "/usr/local/lib/python3.10/dist-packages/torch/serialization.py"
        frames = (f'  File "{lib}", line 1040, in load\n'
                  "    return _legacy_load(opened_file, map_location, pickle_module, **pickle_load_args)\n"
                  f'  File "{lib}", line 1258, in _legacy_load\n'
                  "    magic_number = pickle_module.load(f, **pickle_load_args)\n")
        return line + "\n", tb + frames + line + "\n"
    if kind == "warn":
        line = f"/usr/lib/python3/dist-packages/torch/nn/functional.py:3170: {exc}: {msg}"
        ctx = ("Epoch 1/20\n" + line + "\n  warnings.warn(\n"
               "epoch 1 step 100 loss 2.3026\n")
        return line + "\n", ctx
    if kind == "assert":
        ctx = (msg + "\n" + msg.replace("thread: [", "thread: [1") + "\n" + tb +
               "RuntimeError: CUDA error: device-side assert triggered\n"
               "CUDA kernel errors might be asynchronously reported at some other API call, "
               "so the stacktrace below might be incorrect.\n"
               "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.\n")
        return msg + "\n", ctx
    # a plain line
    return msg + "\n", "Epoch 3/20\n  0%|          | 0/625 [00:00<?, ?it/s]\n" + msg + "\n"


def top(triage, text, extra):
    out = subprocess.run([triage, *extra, "--format", "json", "-"], input=text.encode(),
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False).stdout
    diags = json.loads(out or b"{}").get("diagnoses", [])
    return (diags[0]["category"], diags[0]["rule"]) if diags else (None, None)


def grade(expected, cat):
    if expected in ("-", "?"):
        return "quiet" if cat is None else f"diag:{cat}"
    if cat is None:
        return "none"
    return "right" if cat in expected.split("|") else f"wrong:{cat}"


def sweep(args, extra):
    rows = []
    with open(args.tsv, encoding="utf-8") as f:
        for raw in f:
            if raw.startswith("#") or not raw.strip():
                continue
            area, file, release, kind, exc, msg, expected = raw.rstrip("\n").split("\t")
            # \t only where a line starts (load_state_dict's key lists): Windows paths hold "\torch"
            msg = re.sub(r"(?m)^\\t", "\t", msg.replace("\\n", "\n"))
            alone, ctx = render(area, kind, exc, msg)
            c1, r1 = top(args.triage, alone, extra)
            c2, r2 = top(args.triage, ctx, extra)
            rows.append(dict(area=area, file=file, release=release, kind=kind, exc=exc, msg=msg,
                             expected=expected, alone=grade(expected, c1), alone_rule=r1 or "",
                             ctx=grade(expected, c2), ctx_rule=r2 or ""))
    return rows


def ok(grade_):
    return grade_ in ("right", "quiet")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--triage", default="build/triage")
    ap.add_argument("--tsv", default="docs/message-sweep.tsv")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--baseline", metavar="DIR",
                    help="also sweep with only the rules under DIR (e.g. main's, from git archive) as 'before'")
    args = ap.parse_args()
    after = sweep(args, [])
    before = sweep(args, ["--no-bundled", f"--rules={args.baseline}"]) if args.baseline else after
    if args.markdown:
        print("| area | file | release | message | expected | before: alone / traceback | after: alone / traceback |")
        print("|---|---|---|---|---|---|---|")
        for b, a in zip(before, after):
            # the first line with text (a warning may open with a line break)
            first = next((ln for ln in a["msg"].split("\n") if ln.strip()), "").replace("|", "\\|")
            shown = f"{a['exc']}: {first}" if a["kind"] in ("exc", "warn") else first
            if len(shown) > 140:
                shown = shown[:137] + "..."
            code = f"`` {shown} ``" if "`" in shown else f"`{shown}`"
            print(f"| {a['area']} | `{a['file']}` | {a['release']} | {code} | {a['expected'].replace('|', ' or ')} | "
                  f"{b['alone']} / {b['ctx']} | {a['alone']} / {a['ctx']} |")
        print()
        print("| area | messages | right or quiet before (alone / traceback) | after (alone / traceback) |")
        print("|---|---|---|---|")
        areas = sorted({r["area"] for r in after}, key=[r["area"] for r in after].index)
        for area in areas + ["all"]:
            bs = [r for r in before if area in (r["area"], "all")]
            as_ = [r for r in after if area in (r["area"], "all")]
            print(f"| {area} | {len(as_)} | {sum(ok(r['alone']) for r in bs)} / {sum(ok(r['ctx']) for r in bs)} | "
                  f"{sum(ok(r['alone']) for r in as_)} / {sum(ok(r['ctx']) for r in as_)} |")
    else:
        for r in after:
            print("\t".join([r["area"], r["alone"], r["alone_rule"], r["ctx"], r["ctx_rule"], r["expected"],
                            r["msg"].split("\n")[0][:110]]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
