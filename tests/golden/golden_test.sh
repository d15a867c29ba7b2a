#!/usr/bin/env bash
# Every sample's partitioned and local IR, report and explain text must match
# the checked-in golden files byte for byte (golden_lib.sh says which).
set -uo pipefail
ROOT="$TEST_SRCDIR/${TEST_WORKSPACE:-shardc}"
cd "$ROOT" || exit 1
source tests/golden/golden_lib.sh
out="$TEST_TMPDIR/golden"
golden_outputs "$ROOT/compiler/tools/shardc" "$out"
if diff -ru tests/golden/expected "$out"; then
  echo "1 passed, 0 failed"
else
  echo "golden outputs differ (above); if the change is meant, run tests/golden/update.sh"
  echo "0 passed, 1 failed"
  exit 1
fi
