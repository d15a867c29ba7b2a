#!/usr/bin/env bash
# The differential tester through the GPU target's tile phase, its tiles run
# in index order on the CPU: a fixed seed of its own (so the programs differ
# from the CPU slice's), 80 programs. A failure reproduces with the same
# command (tests/random/README.md).
set -euo pipefail
exec tests/random/random_programs --gpu-sequential --seed=7 --programs=80 \
  --keep="${TEST_UNDECLARED_OUTPUTS_DIR:-/tmp}"
