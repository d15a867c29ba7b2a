#!/usr/bin/env bash
# The differential tester through the GPU target's tile phase, its tiles run
# in index order on the CPU: a fixed seed of its own (so the programs differ
# from the CPU slice's), 80 programs; then the 20 programs of the GPU
# bundle (seed 23), so every random case the bundle runs on a GPU has run
# through the same tiles here. A failure reproduces with the same command
# (tests/random/README.md).
set -euo pipefail
tests/random/random_programs --gpu-sequential --seed=7 --programs=80 \
  --keep="${TEST_UNDECLARED_OUTPUTS_DIR:-/tmp}"
tests/random/random_programs --gpu-sequential --seed=23 --programs=20 --meshes=2 \
  --no-coverage-check --keep="${TEST_UNDECLARED_OUTPUTS_DIR:-/tmp}"
