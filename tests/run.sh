#!/usr/bin/env bash
# Builds everything and runs every test (lit, Catch2 units, N-rank execution
# tests, CLI tests). Ends with "N passed, N failed"; exits non-zero on failure.
set -uo pipefail
cd "$(dirname "$0")/.."
bash .ci/install-deps || exit 1
log=$(mktemp)
rc=0
bazel test //... --nocache_test_results 2>&1 | tee "$log" || rc=$?
passed=$(grep -cE '^//\S+\s+(\(cached\) )?PASSED' "$log" || true)
failed=$(grep -cE '^//\S+\s+.*(FAILED|TIMEOUT|NO STATUS|INCOMPLETE)' "$log" || true)
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
  failed=1 # the build itself failed before any test could report
  echo "bazel exited with status $rc before tests reported; see the log above"
fi
rm -f "$log"
bazel shutdown >/dev/null 2>&1 || true
echo "$passed passed, $failed failed"
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
