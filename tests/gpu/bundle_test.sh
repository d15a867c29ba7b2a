#!/usr/bin/env bash
# The GPU bundle, checked where there is no GPU:
#  - it holds files, not symbolic links into the build machine's tree;
#  - its GPU executables start, read their signature and stop with exit 5,
#    "no CUDA device" (when this machine has no CUDA driver);
#  - run.sh and npycmp judge correctly: with the CPU executables of the
#    same cases in place of the GPU ones every case passes, and an expected
#    output changed by one element makes its case fail, naming where.
set -u
ROOT=$PWD
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failed=0
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
tar -xJf "$ROOT/tests/gpu/bundle.tar.xz" -C "$TMP" || { echo "FAIL: cannot unpack"; exit 1; }
# The bundle travels to another machine: links into this one would dangle.
links=$(find "$TMP" -type l | head -3)
[[ -z $links ]] || fail files "the bundle holds symbolic links: $links"
echo "ok   files (no symbolic links)"
B=$TMP/shardc-gpu-bundle
rows=$(($(wc -l <"$B/cases.tsv") - 1))
random=$(grep -c "^p[0-9]*_m" "$B/cases.tsv")
recipe=$(grep -c "^recipe_" "$B/cases.tsv")
[[ $rows -ge 40 && $random -ge 20 && $recipe -ge 12 ]] ||
  fail cases "only $rows cases in cases.tsv ($random random, $recipe recipe models)"
echo "ok   cases ($rows, $random of them random programs, $recipe recipe models; refused:" \
  "$(wc -l <"$B/refused.txt"))"

skipped=0
if ldconfig -p 2>/dev/null | grep -q "libcuda.so.1"; then
  echo "skip no_device: this machine has a CUDA driver (tests/gpu/run.sh runs the cases on its GPU)"
  skipped=1
else
  bash "$B/run.sh" --quick >"$TMP/quick.out" 2>&1
  [[ $? -ne 0 ]] || fail no_device "run.sh --quick passed without a GPU"
  n=$(grep -c "^FAIL .* exit 5 .*no CUDA device" "$B/results/results.txt")
  [[ $n -eq 3 ]] || fail no_device "expected 3 cases failing with 'no CUDA device', got $n"
  echo "ok   no_device ($n cases: exit 5, no CUDA device)"
  grep -q "^error: no CUDA device" "$B/results/bench.txt" ||
    fail no_device "the GEMM benchmark did not stop with 'no CUDA device'"
fi

# The sample cases on the CPU executables (the random programs' and the
# recipe models' CPU executables made the expected values and are not in
# the bundle).
cp "$B/cases.tsv" "$TMP/all_cases.tsv"
grep -v -e "^p[0-9]*_m" -e "^recipe_" "$TMP/all_cases.tsv" >"$B/cases.tsv"
samples=$(($(wc -l <"$B/cases.tsv") - 1))
while IFS=$'\t' read -r case exe rest; do
  [[ $case == case ]] && continue
  cp "$ROOT/tests/exe/${case%%/*}_cpu" "$B/bin/$exe"
done <"$B/cases.tsv"
bash "$B/run.sh" >"$TMP/cpu.out" 2>&1 || fail cpu_cases "run.sh failed: $(tail -3 "$TMP/cpu.out")"
grep -q "^$samples passed, 0 failed$" "$TMP/cpu.out" || fail cpu_cases "not every case passed"
echo "ok   cpu_cases ($(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$TMP/cpu.out" | tail -1))"

# One expected element changed: that case fails and says where.
"$ROOT/tests/cli/npy_tool" write "$B/expected/mlp_1rank/loss.npy" f32 scalar 123.5 >/dev/null
bash "$B/run.sh" --quick >"$TMP/bad.out" 2>&1
[[ $? -ne 0 ]] || fail wrong_value "run.sh passed with a wrong expected value"
grep -q "^FAIL mlp_1rank/sm_90 loss.npy: max |diff| .* at \[\] (expected 123.5" "$TMP/bad.out" ||
  fail wrong_value "no FAIL line naming loss.npy: $(grep FAIL "$TMP/bad.out" | head -2)"
echo "ok   wrong_value"

[[ $skipped -eq 0 ]] || echo "some cases skipped: no_device did not run"
echo "$failed failed"
[[ $failed -eq 0 ]]
