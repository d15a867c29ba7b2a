#!/usr/bin/env bash
# `shardc run --profile`: each rank's time per kernel and per collective.
#   - a 4-rank training run prints one table per rank, with the all-reduce
#     and kernel sites named by source position (as the report names
#     them), each called once per step,
#     and the same losses as without profiling;
#   - where the 4 ranks outnumber the cores, a note says that the times
#     include waiting for a core, and another that waits include peers'
#     shared loop chunks (not with SHARDRT_SHARE_LOOPS=0);
#   - the table is printed under --quiet too;
#   - --profile-rows N lists N sites per rank (0: every site), and needs
#     --profile;
#   - an artifact compiled with --profile is profiled when run, and runs
#     unprofiled without it; one compiled without it is refused (exit 5),
#     saying how to fix that;
#   - `compile --timing` prints the compile's time per phase, with the
#     passes under them and LLVM's optimization and code generation, to
#     standard error, and writes the same artifact.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

LR="$ROOT/samples/linear_regression.mlir"

if expect_ok profile4 -- run "$LR" --mesh data=4 "${SEED_IN[@]}" --steps 3 --profile; then
  out="$TMP/profile4.out"
  check profile4 "heading" contains "$out" "profile: time per kernel and collective call site"
  for r in 0 1 2 3; do
    check profile4 "a table for rank $r" contains "$out" "rank $r (3 steps, "
  done
  check profile4 "four tables" test "$(count_of "$out" " in the local program):")" = 4
  # Each rank starts and finishes the gradient's all-reduce once per step;
  # the finish's time is the communication left exposed.
  for site in all_reduce_start all_reduce_done; do
    check profile4 "$site sites, 3 calls each" \
      grep -qE "^ +[0-9.]+ +[0-9.]+% +3  $site [^ ]*linear_regression\.mlir:[0-9]+:[0-9]+( \[[^]]+\])?\$" "$out"
  done
  check profile4 "kernel sites" \
    grep -qE '^ +[0-9.]+ +[0-9.]+% +3  kernel [a-z_0-9]+ [^ ]*linear_regression\.mlir:' "$out"
  check profile4 "the rest of the time" contains "$out" "not in a site (copies, allocation"
  # Four ranks on fewer cores time-slice: the table says its times include that.
  cores=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc) # the affinity mask's
  if [ "$cores" -lt 4 ]; then
    check profile4 "ranks sharing cores noted" contains "$out" "note: 4 ranks share $cores cores"
    check profile4 "shared loops noted" contains "$out" "runs chunks of its peers' parallel loops"
  else
    check profile4 "no note with a core per rank" not_contains "$out" "ranks share"
  fi
  check profile4 "time by kind, every rank" test "$(grep -cE \
    '^  kernels [0-9.]+ ms, collectives [0-9.]+ ms \(waiting for reductions to finish: [0-9.]+ ms\)$' \
    "$out")" = 4
  check profile4 "same step 3 loss as unprofiled" contains "$out" "step 3: loss = 1.80017"
fi

# SHARDRT_SHARE_LOOPS=0: no shared loops, and no note about them.
cores=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
if [ "$cores" -lt 4 ] && SHARDRT_SHARE_LOOPS=0 expect_ok profile4_unshared -- \
  run "$LR" --mesh data=4 "${SEED_IN[@]}" --steps 1 --profile --quiet; then
  check profile4_unshared "no shared loops note" \
    not_contains "$TMP/profile4_unshared.out" "peers' parallel loops"
  check profile4_unshared "the cores note stays" \
    contains "$TMP/profile4_unshared.out" "note: 4 ranks share $cores cores"
fi

if expect_ok profile_quiet -- run "$LR" --mesh data=2 "${SEED_IN[@]}" --steps 2 --profile --quiet; then
  check profile_quiet "table under --quiet" contains "$TMP/profile_quiet.out" "rank 1 (2 steps, "
  check profile_quiet "no loss under --quiet" not_contains "$TMP/profile_quiet.out" "loss ="
fi

if expect_ok profile_rows -- run "$LR" --mesh data=2 "${SEED_IN[@]}" --steps 1 --profile \
  --profile-rows 2 --quiet; then
  out="$TMP/profile_rows.out"
  check profile_rows "two sites per rank" test "$(grep -cE '^ +[0-9.]+ +[0-9.]+% +1  ' "$out")" = 4
  check profile_rows "the rest counted" grep -qE '^ +[0-9.]+ +[0-9.]+% +[0-9]+ more sites$' "$out"
fi
if expect_ok profile_rows_all -- run "$LR" --mesh data=2 "${SEED_IN[@]}" --steps 1 --profile \
  --profile-rows 0 --quiet; then
  check profile_rows_all "every site" not_contains "$TMP/profile_rows_all.out" "more sites"
fi
expect_error profile_rows_alone 2 "--profile-rows 3 needs --profile" -- \
  run "$LR" --mesh data=2 "${SEED_IN[@]}" --profile-rows 3
expect_error profile_rows_bad 2 "expected a number of rows" -- \
  run "$LR" --mesh data=2 "${SEED_IN[@]}" --profile --profile-rows many

# Compiled artifacts: probes only when compiled with --profile.
if expect_ok compile_plain -- compile "$LR" --mesh data=2 -o "$TMP/plain" --quiet; then
  expect_error profile_unprofiled 5 "compiled without profiling" "--profile" -- \
    run "$TMP/plain" "${SEED_IN[@]}" --profile
fi
if expect_ok compile_profiled -- compile "$LR" --mesh data=2 -o "$TMP/profiled" --profile --quiet; then
  if expect_ok run_profiled -- run "$TMP/profiled" "${SEED_IN[@]}" --steps 2 --profile; then
    check run_profiled "tables" contains "$TMP/run_profiled.out" "rank 1 (2 steps, "
  fi
  if expect_ok run_profiled_plain -- run "$TMP/profiled" "${SEED_IN[@]}" --steps 2; then
    check run_profiled_plain "no table" not_contains "$TMP/run_profiled_plain.out" "profile:"
    check run_profiled_plain "step 2 loss" contains "$TMP/run_profiled_plain.out" \
      "step 2: loss = 2.67843"
  fi
fi

# Compile time by phase.
if expect_ok compile_timing -- compile "$LR" --mesh data=2 -o "$TMP/timed" --timing --quiet; then
  err="$TMP/compile_timing.err"
  for phase in "global phase" "propagation phase" "partition phase" "local phase" \
    "lowering phase" "CPU target: to the LLVM dialect" "translation to LLVM IR"; do
    check compile_timing "phase: $phase" grep -qE "[0-9]%\) +$phase\$" "$err"
  done
  check compile_timing "phase: LLVM, with its partitions" \
    grep -qE "[0-9]%\) +LLVM IR optimization and code generation \(1 partition\)\$" "$err"
  check compile_timing "passes nested in a phase" grep -qE "[0-9]%\) +GArrayPropagate\$" "$err"
  check compile_timing "a total" grep -qE "\(100.0%\) +Total\$" "$err"
  check compile_timing "nothing on stdout" test ! -s "$TMP/compile_timing.out"
  check compile_timing "the artifact" test -s "$TMP/timed/model.o"
fi

finish
