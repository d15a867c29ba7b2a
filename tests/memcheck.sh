#!/usr/bin/env bash
# The compiler under Valgrind's memcheck: `shardc compile` of every sample
# (one check each), failing on any invalid read or write, use of freed
# memory or uninitialized value in the compiler's own code.
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

# One sample: exit 0 when memcheck found nothing and the compile succeeded.
check() {
  local model=$1 name log
  name=$(basename "$model" .mlir)
  log="$work/$name.log"
  valgrind -q --error-exitcode=99 --track-origins=no \
    "$shardc" compile "$model" -o "$work/$name.out" --quiet --compile-threads=1 >"$log" 2>&1
  echo $? >"$work/$name.rc"
}
export -f check
export shardc work
ls samples/*.mlir | xargs -P 2 -I{} bash -c 'check {}'

passed=0 failed=0
for model in samples/*.mlir; do
  name=$(basename "$model" .mlir)
  rc=$(cat "$work/$name.rc" 2>/dev/null || echo missing)
  if [[ $rc == 0 ]]; then
    echo "memcheck: shardc compile $model: clean"
    passed=$((passed + 1))
  else
    echo "=== failure: memcheck: shardc compile $model (status $rc; 99: memcheck errors)"
    head -60 "$work/$name.log" | sed 's/^/  | /'
    echo "=== end of failure"
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
