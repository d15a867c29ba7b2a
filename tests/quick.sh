#!/usr/bin/env bash
# The inner loop: lit, the sharding core, the pass properties, the runtime
# units and the golden outputs; not the N-rank execution, CLI or MPI tests
# (tags exec, cli, mpi). Cached results are reused. Ends with
# "N passed, N failed"; exits non-zero on failure.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
bash .ci/install-deps || exit 1
source tests/summary.sh
bazel_test_summary //tests/lit/... //tests/sharding/... //tests/runtime/... \
  //tests/passes/... //tests/golden/... //tests/import/... --test_tag_filters=-exec,-cli,-mpi
