#!/usr/bin/env bash
# Builds everything and runs every test (lit, Catch2 units, N-rank execution
# tests, CLI tests). Ends with "N passed, N failed"; exits non-zero on failure.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
bash .ci/install-deps || exit 1
source tests/summary.sh
bazel_test_summary //... --nocache_test_results
