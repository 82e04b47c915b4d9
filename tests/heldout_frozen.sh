#!/usr/bin/env bash
# The held-out wild cases are frozen (Note: [Held-out split] in corpus/README.md): every file listed in
# corpus/heldout/MANIFEST.sha256 must be there with the same bytes, and no file may be there unlisted.
# Fails on any edit, addition or removal; only corpus/split_heldout.py rewrites the manifest.
set -euo pipefail
dir=${1:?usage: heldout_frozen.sh CORPUS_HELDOUT_DIR}
cd "$dir"
[ -s MANIFEST.sha256 ] || { echo "no MANIFEST.sha256 in $dir"; exit 1; }
sha256sum --quiet --strict -c MANIFEST.sha256
listed=$(sed 's/^[0-9a-f]*  //' MANIFEST.sha256 | sort)
present=$(find . -type f ! -name MANIFEST.sha256 | sed 's|^\./||' | sort)
if [ "$listed" != "$present" ]; then
  echo "files under $dir differ from the manifest:"
  diff <(echo "$listed") <(echo "$present") || true
  exit 1
fi
echo "held-out set unchanged: $(echo "$listed" | wc -l) files"
