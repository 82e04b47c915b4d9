# Parsing a comma-separated option by hand; a typo ('9O' with a letter O) raises a plain
# Python ValueError before any tensor is touched.
import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--milestones", default="30,60,9O")
args = parser.parse_args([])
print(f"torch {torch.__version__}; parsing LR milestones '{args.milestones}'", flush=True)
milestones = [int(m) for m in args.milestones.split(",")]
