#!/usr/bin/env bash
# Builds everything and runs every test (lit, Catch2 units, N-rank execution
# tests, CLI tests). Ends with "N passed, N failed"; exits non-zero on failure.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
bash .ci/install-deps || exit 1
source tests/summary.sh
# The layers of bazel/BUILD, as visibility: a dependency the wrong way
# must fail to build.
EXTRA_PASSED=0 EXTRA_FAILED=0
if bash tools/check_layers.sh; then
  EXTRA_PASSED=1
else
  EXTRA_FAILED=1
  printf '=== failure: tools/check_layers.sh\n  | see its output above\n=== end of failure\n'
fi
bazel_test_summary //... --nocache_test_results
