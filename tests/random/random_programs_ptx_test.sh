#!/usr/bin/env bash
# Random programs compiled to PTX for sm_90 and sm_90a and assembled by the
# CUDA toolkit's ptxas (`shardc compile --target ptx --emit=ptx`); nothing
# runs. Without a toolkit each run prints "skipped: ..." and exits 0.
set -euo pipefail
for arch in sm_90 sm_90a; do
  tests/random/random_programs --ptx="$arch" --seed=11 --programs=60 --meshes=2 \
    --keep="${TEST_UNDECLARED_OUTPUTS_DIR:-/tmp}"
done
