#!/usr/bin/env bash
# Runs each libFuzzer target from its seed corpus: the samples, every lit
# input and every JAX export of tests/import/jax (the importer) for the
# model fuzzer, the samples' .npy files for the .npy reader,
# manifests compiled from the samples for the manifest reader.
#   bash fuzz/run.sh [RUNS]     the model fuzzer RUNS inputs (default 8000),
#                               the two readers 50 times as many; seed 1
# The default is about one to three minutes per target on a 2-core machine.
# Seed 1 always, yet a run on another machine may try other inputs (the
# seeds are read in the file system's order), so one machine's run can
# crash where another's passed. A crash leaves its input in fuzz/crashes/
# (make it a regression test) and the script fails. Ends with
# "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
runs=${1:-8000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p fuzz/crashes "$work/model" "$work/npy" "$work/manifest"

bazel build --config=fuzz //fuzz:npy_fuzzer //fuzz:manifest_fuzzer >/dev/null 2>&1 &&
  cp bazel-bin/fuzz/npy_fuzzer bazel-bin/fuzz/manifest_fuzzer "$work/" || {
  echo "building the fuzzers failed"; echo "0 passed, 1 failed"; exit 1; }
bazel build --config=fuzz-model //fuzz:model_fuzzer >/dev/null 2>&1 &&
  cp bazel-bin/fuzz/model_fuzzer "$work/" || {
  echo "building the model fuzzer failed"; echo "0 passed, 1 failed"; exit 1; }
bazel build //compiler/tools:shardc >/dev/null 2>&1 || exit 1

# Seeds.
cp samples/*.mlir "$work/model/"
find tests/lit -name '*.mlir' -exec cp {} "$work/model/" \;
# JAX's generic StableHLO form, through the importer: every checked-in
# export (helpers called from op bodies, while loops, shard_maps, sorts).
for f in tests/import/jax/*.mlir; do
  cp "$f" "$work/model/jax_$(basename "$f")"
done
find samples -name '*.npy' -exec sh -c 'cp "$1" "$2/$(echo "$1" | tr / _)"' _ {} "$work/npy" \;
for m in samples/linear_regression_step.mlir samples/mlp.mlir samples/heat_stencil.mlir; do
  bazel-bin/compiler/tools/shardc compile "$m" -o "$work/out" --quiet &&
    cp "$work/out/manifest.json" "$work/manifest/$(basename "$m" .mlir).json"
done

passed=0 failed=0
fuzz() { # fuzz NAME CORPUS RUNS [ARGS...]
  local name=$1 corpus=$2 n=$3
  shift 3
  echo "== $name: $n runs from $(ls "$corpus" | wc -l) seeds"
  if "$work/$name" "$corpus" -runs="$n" -seed=1 -timeout=20 -rss_limit_mb=4096 \
      -max_len=65536 -artifact_prefix=fuzz/crashes/"$name"- -print_final_stats=1 "$@" \
      >"$work/$name.log" 2>&1; then
    passed=$((passed + 1))
    grep -E 'stat::number_of_executed_units|cov:' "$work/$name.log" | tail -2
  else
    failed=$((failed + 1))
    echo "=== failure: $name"
    tail -30 "$work/$name.log" | sed 's/^/  | /'
    echo "=== end of failure"
  fi
}
fuzz npy_fuzzer "$work/npy" $((runs * 50))
fuzz manifest_fuzzer "$work/manifest" $((runs * 50)) -dict=fuzz/garray.dict
fuzz model_fuzzer "$work/model" "$runs" -dict=fuzz/garray.dict
bazel shutdown >/dev/null 2>&1 || true
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
