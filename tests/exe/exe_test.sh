#!/usr/bin/env bash
# Standalone executables of the samples (CPU target): each gives bit for
# bit what `shardc run` gives with the same object flags, prints the loss
# per step of a training run, and exits with `shardc run`'s statuses on
# bad command lines (2), inputs (4) and output folders (6). `shardc compile
# --exe` links the same programs.
set -u
ROOT=$PWD
BIN=$ROOT
SHARDC=$BIN/compiler/tools/shardc
NPY=$BIN/tests/cli/npy_tool
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$ROOT/tests/exe/inputs.sh"
make_inputs "$NPY" "$TMP/gen" || { echo "FAIL: cannot write the generated inputs"; exit 1; }
failed=0 cases=0
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

while read -r name model mesh; do
  cases=$((cases + 1))
  args=$(case_args "$name" "$ROOT/samples" "$TMP/gen") || { fail "$name" "no inputs"; continue; }
  exe=$BIN/tests/exe/${name}_cpu
  # shellcheck disable=SC2086
  if ! "$exe" $args --out "$TMP/$name.exe" >"$TMP/$name.exe.log" 2>&1; then
    fail "$name" "the executable failed: $(tail -3 "$TMP/$name.exe.log")"
    continue
  fi
  # shellcheck disable=SC2086
  if ! "$SHARDC" run "$ROOT/samples/$model.mlir" --mesh "$mesh" --cpu x86-64-v3 $args \
      --out "$TMP/$name.run" --quiet >"$TMP/$name.run.log" 2>&1; then
    fail "$name" "shardc run failed: $(tail -3 "$TMP/$name.run.log")"
    continue
  fi
  n=0
  for f in "$TMP/$name.run"/*.npy; do
    n=$((n + 1))
    cmp -s "$f" "$TMP/$name.exe/$(basename "$f")" ||
      fail "$name" "$(basename "$f") differs from shardc run's"
  done
  [[ $n -gt 0 ]] || fail "$name" "shardc run wrote no outputs"
  [[ $(ls "$TMP/$name.exe" | wc -l) -eq $n ]] || fail "$name" "the executable wrote other outputs"
  echo "ok   $name ($n outputs, $(head -1 "$TMP/$name.exe.log"))"
done < <(sed -n 's/^ *("\([a-z0-9_]*\)", "\([a-z_]*\)", "\([a-z0-9=,]*\)"),$/\1 \2 \3/p' \
  "$ROOT/tests/exe/cases.bzl")
[[ $cases -ge 9 ]] || fail cases "read only $cases cases from cases.bzl"

# `shardc compile --exe` links the same program: bit for bit the outputs of
# the Bazel-built one. Without a C++ driver it is exit 3 and writes nothing.
cases=$((cases + 1))
mlp_args=$(case_args mlp "$ROOT/samples" "$TMP/gen")
if "$SHARDC" compile "$ROOT/samples/mlp.mlir" --mesh data=2,model=2 --cpu x86-64-v3 --exe \
    -o "$TMP/mlp_exe" --quiet >"$TMP/compile_exe.log" 2>&1; then
  # shellcheck disable=SC2086
  "$TMP/mlp_exe/main" $mlp_args --out "$TMP/mlp_exe_out" >/dev/null 2>&1 ||
    fail compile_exe "OUT/main failed"
  for f in "$TMP/mlp.exe"/*.npy; do
    cmp -s "$f" "$TMP/mlp_exe_out/$(basename "$f")" ||
      fail compile_exe "$(basename "$f") differs from the Bazel-built executable's"
  done
else
  fail compile_exe "shardc compile --exe failed: $(tail -3 "$TMP/compile_exe.log")"
fi
# `shardc run --exe` runs the model as that executable (how GPU models
# run): the same outputs, bit for bit, and the same loss lines; arguments
# named by position too; options the executable lacks are refused (2).
cases=$((cases + 1))
train_args=$(case_args mlp_train "$ROOT/samples" "$TMP/gen")
# shellcheck disable=SC2086
if "$SHARDC" run "$ROOT/samples/mlp_train.mlir" --mesh data=2,model=2 --cpu x86-64-v3 --exe \
    $train_args --out "$TMP/run_exe" >"$TMP/run_exe.log" 2>&1; then
  for f in "$TMP/mlp_train.exe"/*.npy; do
    cmp -s "$f" "$TMP/run_exe/$(basename "$f")" ||
      fail run_exe "$(basename "$f") differs from the executable's"
  done
  grep -q "^step 3: loss = " "$TMP/run_exe.log" || fail run_exe "no per-step loss printed"
else
  fail run_exe "shardc run --exe failed: $(tail -3 "$TMP/run_exe.log")"
fi
cases=$((cases + 1))
"$SHARDC" run "$ROOT/samples/linear_regression_step.mlir" --mesh data=2 --exe \
  --in arg0="$ROOT/samples/linear_regression/X.npy" --in arg1="$ROOT/samples/linear_regression/y.npy" \
  --in arg2="$ROOT/samples/linear_regression/w.npy" --out "$TMP/run_exe_pos" --quiet \
  >"$TMP/run_exe_pos.log" 2>&1 || fail run_exe_positional "$(tail -2 "$TMP/run_exe_pos.log")"
cases=$((cases + 1))
"$SHARDC" run "$ROOT/samples/linear_regression_step.mlir" --exe --profile \
  --in X="$ROOT/samples/linear_regression/X.npy" >/dev/null 2>"$TMP/run_exe_profile.err"
st=$?
[[ $st -eq 2 ]] || fail run_exe_profile "exit status $st, expected 2"
grep -qF -- "--profile is not available when the model runs as its standalone executable" \
  "$TMP/run_exe_profile.err" || fail run_exe_profile "no message naming --profile"

cases=$((cases + 1))
CXX=/nonexistent/c++ "$SHARDC" compile "$ROOT/samples/mlp.mlir" --exe -o "$TMP/no_cxx" \
  >/dev/null 2>"$TMP/no_cxx.err"
st=$?
[[ $st -eq 3 ]] || fail no_cxx "exit status $st, expected 3"
grep -qF "CXX=/nonexistent/c++ is not one" "$TMP/no_cxx.err" || fail no_cxx "no message naming CXX"
[[ ! -e "$TMP/no_cxx" ]] || fail no_cxx "a failed --exe left $TMP/no_cxx behind"

# A training run prints its loss each step.
grep -q "^step 3: loss = " "$TMP/mlp_train.exe.log" || fail mlp_train "no per-step loss printed"

# Exit statuses.
LR=$BIN/tests/exe/linear_regression_step_cpu
S=$ROOT/samples/linear_regression
expect_status() {
  local name=$1 want=$2 key=$3
  shift 3
  cases=$((cases + 1))
  "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
  local got=$?
  [[ $got -eq $want ]] || fail "$name" "exit status $got, expected $want"
  grep -qF -- "$key" "$TMP/$name.err" || fail "$name" "stderr does not mention '$key'"
}
expect_status bad_flag 2 "unknown argument '--bogus'" "$LR" --bogus
expect_status bad_steps 2 "--steps takes a positive number" "$LR" --steps 0
expect_status unknown_input 2 "no input of that name" "$LR" --in Q="$S/X.npy"
expect_status missing_input 4 "input 'w' (f32[2]) is missing" "$LR" --in X="$S/X.npy" --in y="$S/y.npy"
expect_status wrong_shape 4 "the model takes f32[2]" "$LR" --in X="$S/X.npy" --in y="$S/y.npy" \
  --in w="$S/y.npy"
touch "$TMP/file"
expect_status bad_out 6 "$TMP/file/" "$LR" --in X="$S/X.npy" --in y="$S/y.npy" --in w="$S/w.npy" \
  --out "$TMP/file"

echo "$cases cases, $failed failed"
[[ $failed -eq 0 ]]
