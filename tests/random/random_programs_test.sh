#!/usr/bin/env bash
# The differential tester's CI slice: a fixed seed, so a failure reproduces
# with the same command (see tests/random/README.md).
set -euo pipefail
exec tests/random/random_programs --seed=1 --programs=150 --keep="${TEST_UNDECLARED_OUTPUTS_DIR:-/tmp}"
