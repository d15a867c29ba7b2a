#!/usr/bin/env bash
# Random programs compiled to GPU objects for sm_90 and sm_90a (`shardc
# compile --target ptx`: kernels assembled by the CUDA toolkit's ptxas, host
# code lowered onto shardrt's CUDA part); nothing runs. Without a toolkit each run prints "skipped: ..." and exits 0.
set -euo pipefail
for arch in sm_90 sm_90a; do
  tests/random/random_programs --ptx="$arch" --seed=11 --programs=60 --meshes=2 \
    --keep="${TEST_UNDECLARED_OUTPUTS_DIR:-/tmp}"
done
