#!/usr/bin/env bash
# The compiler under Valgrind's memcheck, failing on any invalid read or
# write, use of freed memory or uninitialized value in its own code:
#   `shardc compile` of every sample (which must succeed), and
#   `shardc import` of every StableHLO input of tests/lit/import (each
#   split-file piece; the ones that test a refusal fail to import, which is
#   fine here: only memcheck's verdict counts).
#
# Why Valgrind: code that links libMLIR cannot run under ASan here
# (docs/testing.md), so a pass that reads an op after a rewrite erased it
# goes unseen by the sanitizers; it read stale memory, and crashed only
# when that memory had been reused. Only compiling runs under Valgrind:
# the objects' kernels may use AVX-512, which Valgrind does not decode.
#
# Ends with "N passed, N failed"; exits non-zero on any failure. Each
# failure is printed between "=== failure: NAME" and "=== end of failure".
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
bash .ci/install-deps || exit 1
if ! bazel build //compiler/tools:shardc; then
  bazel shutdown
  echo "=== failure: bazel build //compiler/tools:shardc"
  echo "=== end of failure"
  echo "0 passed, 1 failed"
  exit 1
fi
bazel shutdown
shardc=$(readlink -f bazel-bin/compiler/tools/shardc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The checks, one per line: ID MUST_SUCCEED SHARDC_ARGS...
checks="$work/checks"
for model in samples/*.mlir; do
  id=compile-$(basename "$model" .mlir)
  echo "$id 1 compile $model -o $work/$id.out --quiet --compile-threads=1" >>"$checks"
done
for input in tests/lit/import/*.mlir; do
  name=$(basename "$input" .mlir)
  if grep -q '^//--- ' "$input"; then
    mkdir -p "$work/$name"
    /usr/lib/llvm-22/bin/split-file "$input" "$work/$name" || exit 1
    for piece in "$work/$name"/*.mlir; do
      echo "import-$name-$(basename "$piece" .mlir) 0 import $piece" >>"$checks"
    done
  else
    echo "import-$name 0 import $input" >>"$checks"
  fi
done

# One check: writes its status to $work/ID.rc (99: memcheck found errors).
check() {
  local id=$1 must=$2 rc
  shift 2
  valgrind -q --error-exitcode=99 "$shardc" "$@" >"$work/$id.log" 2>&1
  rc=$?
  [[ $rc -ne 99 && $must -eq 0 ]] && rc=0
  echo "$rc" >"$work/$id.rc"
}
export -f check
export shardc work
xargs -P 2 -L 1 bash -c 'check "$@"' _ <"$checks"

passed=0 failed=0
while read -r id must args; do
  rc=$(cat "$work/$id.rc" 2>/dev/null || echo missing)
  if [[ $rc == 0 ]]; then
    passed=$((passed + 1))
  else
    echo "=== failure: memcheck: shardc ${args%% -o *} (status $rc; 99: memcheck errors)"
    head -60 "$work/$id.log" | sed 's/^/  | /'
    echo "=== end of failure"
    failed=$((failed + 1))
  fi
done <"$checks"
echo "memcheck: $passed of $((passed + failed)) shardc runs clean"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
