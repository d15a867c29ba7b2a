#!/usr/bin/env bash
# shardc used as documented: compile to a directory and run it, run a model
# directly on 1/2/4/8 ranks, write outputs with --out and read them back, print
# the IR at phase boundaries, and print the collectives report. The seed's
# numbers: loss 4.875, grad [-5.25, -0.75], w_next [0.525, 0.075].
set -u
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

seed_numbers() { # seed_numbers NAME: stdout of the last run shows the seed's results
  local name=$1 out="$TMP/$1.out"
  check "$name" "prints loss = 4.875" contains "$out" "loss = 4.875"
  check "$name" "prints grad = [-5.25, -0.75]" contains "$out" "grad = [-5.25, -0.75]"
  check "$name" "prints w_next = [0.525, 0.075]" contains "$out" "w_next = [0.525, 0.075]"
}

# --- shardc compile -o OUT, then shardc run OUT/ ----------------------------
if expect_ok compile_seed -- compile "$SEED" --mesh data=4 -o "$TMP/out4"; then
  for f in model.o manifest.json report.txt; do
    check compile_seed "writes a non-empty $f" test -s "$TMP/out4/$f"
  done
  check compile_seed "model.o is an ELF object" \
    test "$(head -c 4 "$TMP/out4/model.o" | tail -c 3)" = "ELF"
  check compile_seed "says what it wrote" contains "$TMP/compile_seed.out" "2 collectives"
  check compile_seed "manifest names the mesh" contains "$TMP/out4/manifest.json" '"data"'
  check compile_seed "manifest names the inputs" contains "$TMP/out4/manifest.json" '"name": "X"'
  check compile_seed "report.txt lists 2 collectives" \
    test "$(grep -cE '^ +all_reduce ' "$TMP/out4/report.txt")" = 2

  if expect_ok run_compiled_dir -- run "$TMP/out4" "${SEED_IN[@]}"; then
    seed_numbers run_compiled_dir
    check run_compiled_dir "ran on 4 ranks" contains "$TMP/run_compiled_dir.out" "ran on 4 ranks"
  fi
  if expect_ok run_compiled_dir_same_mesh -- run "$TMP/out4" --mesh data=4 "${SEED_IN[@]}"; then
    seed_numbers run_compiled_dir_same_mesh
  fi
fi

# Default output directory: out/ in the working directory.
if expect_ok compile_default_out -- compile "$SEED" --quiet; then
  check compile_default_out "writes out/model.o" test -s "$TMP/out/model.o"
  check compile_default_out "--quiet prints nothing" test ! -s "$TMP/compile_default_out.out"
fi

# --- shardc run MODEL on 1, 2, 4, 8 ranks -----------------------------------
for n in 1 2 4 8; do
  if expect_ok "run_seed_data$n" -- run "$SEED" --mesh "data=$n" "${SEED_IN[@]}"; then
    seed_numbers "run_seed_data$n"
    check "run_seed_data$n" "ran on $n ranks" contains "$TMP/run_seed_data$n.out" "ran on $n ranks"
  fi
done

# --- --out DIR: global .npy outputs read back -------------------------------
if expect_ok run_out_dir -- run "$SEED" --mesh data=4 "${SEED_IN[@]}" --out "$TMP/results"; then
  check run_out_dir "loss.npy = 4.875" "$NPY" check "$TMP/results/loss.npy" f32 scalar 4.875
  check run_out_dir "grad.npy = [-5.25, -0.75]" \
    "$NPY" check "$TMP/results/grad.npy" f32 2 -5.25 -0.75
  check run_out_dir "w_next.npy = [0.525, 0.075]" \
    "$NPY" check "$TMP/results/w_next.npy" f32 2 0.525 0.075
  check run_out_dir "says where it wrote" contains "$TMP/run_out_dir.out" "wrote 3 outputs"
fi
# Same from a compiled directory on 8 ranks.
if expect_ok compile_seed8 -- compile "$SEED" --mesh data=8 -o "$TMP/out8" --quiet &&
  expect_ok run_out_dir8 -- run "$TMP/out8" "${SEED_IN[@]}" --out "$TMP/results8" --quiet; then
  check run_out_dir8 "loss.npy = 4.875" "$NPY" check "$TMP/results8/loss.npy" f32 scalar 4.875
  check run_out_dir8 "grad.npy" "$NPY" check "$TMP/results8/grad.npy" f32 2 -5.25 -0.75
  check run_out_dir8 "w_next.npy" "$NPY" check "$TMP/results8/w_next.npy" f32 2 0.525 0.075
fi

# Inputs written by the helper (not the sample files): X = 1, y = 0, w = 0.5.
# r = X w - y = 1 per row, loss = 1, grad = (2/8) * 8 * 1 = 2 per feature,
# w_next = 0.5 - 0.1 * 2 = 0.3.
"$NPY" write "$TMP/X1.npy" f32 8,2 1 && "$NPY" write "$TMP/y0.npy" f32 8 0 &&
  "$NPY" write "$TMP/w05.npy" f32 2 0.5 || exit 1
if expect_ok run_helper_inputs -- run "$SEED" --mesh data=2 --in "X=$TMP/X1.npy" \
  --in "y=$TMP/y0.npy" --in "w=$TMP/w05.npy" --out "$TMP/helper" --quiet; then
  check run_helper_inputs "loss 1" "$NPY" check "$TMP/helper/loss.npy" f32 scalar 1
  check run_helper_inputs "grad [2, 2]" "$NPY" check "$TMP/helper/grad.npy" f32 2 2 2
  check run_helper_inputs "w_next [0.3, 0.3]" "$NPY" check "$TMP/helper/w_next.npy" f32 2 0.3 0.3
fi

# bf16 in and out, as ml_dtypes saves it ('<V2'): g = 3 h, exact in bf16.
"$NPY" write "$TMP/h_bf16.npy" bf16 4,2 1 -2 0.5 3 -0.25 8 1.5 -4 || exit 1
if expect_ok run_bf16_io -- run "$ROOT/tests/cli/bf16_io.mlir" --in "h=$TMP/h_bf16.npy" \
  --out "$TMP/bf16" --quiet; then
  check run_bf16_io "g = 3 h, written as bf16" \
    "$NPY" check "$TMP/bf16/g.npy" bf16 4,2 3 -6 1.5 9 -0.75 24 4.5 -12
  check run_bf16_io "written as ml_dtypes writes bfloat16" contains "$TMP/bf16/g.npy" "'<V2'"
fi

# --- --emit -------------------------------------------------------------------
if expect_ok emit_partitioned -- compile "$SEED" --mesh data=4 --emit=partitioned -o "$TMP/emit_out"; then
  out="$TMP/emit_partitioned.out"
  check emit_partitioned "exactly 2 garray.all_reduce (got $(count_of "$out" garray.all_reduce))" \
    test "$(count_of "$out" "garray.all_reduce")" = 2
  check emit_partitioned "no comm.* yet" test "$(count_of "$out" "comm.")" = 0
  check emit_partitioned "still global shapes" contains "$out" "tensor<8x2xf32>"
  check emit_partitioned "writes no output directory" test ! -e "$TMP/emit_out"
fi
if expect_ok emit_local -- compile "$SEED" --mesh data=4 --emit=local; then
  out="$TMP/emit_local.out"
  check emit_local "has comm.all_reduce" contains "$out" "comm.all_reduce"
  # The loss's and the gradient's reductions are independent: one combined
  # collective carries both.
  check emit_local "1 comm.all_reduce (got $(count_of "$out" comm.all_reduce))" \
    test "$(count_of "$out" "comm.all_reduce")" = 1
  check emit_local "combined from 2 parts" contains "$out" "combined 2 independent all-reduces"
  check emit_local "local X is tensor<2x2xf32>" contains "$out" "tensor<2x2xf32>"
  check emit_local "no global X shape left" test "$(count_of "$out" "tensor<8x2xf32>")" = 0
  check emit_local "no garray.all_reduce left" test "$(count_of "$out" "garray.all_reduce")" = 0
  check emit_local "no shardings left" test "$(count_of "$out" "garray.sharding")" = 0
  check emit_local "groups of 4 devices" contains "$out" "groups = [[0, 1, 2, 3]]"
fi
if expect_ok emit_local_data2 -- compile "$SEED" --mesh data=2 --emit=local; then
  check emit_local_data2 "local X is tensor<4x2xf32>" contains "$TMP/emit_local_data2.out" "tensor<4x2xf32>"
fi
if expect_ok emit_global -- compile "$SEED" --mesh data=2 --emit=global; then
  check emit_global "mesh resized to data=2" contains "$TMP/emit_global.out" 'garray.mesh @mesh ["data" = 2]'
fi
if expect_ok emit_propagated -- compile "$SEED" --emit=propagated; then
  check emit_propagated "shardings on ops" contains "$TMP/emit_propagated.out" "garray.sharding"
fi
if expect_ok emit_llvm -- compile "$SEED" --emit=llvm; then
  check emit_llvm "LLVM IR" contains "$TMP/emit_llvm.out" "target triple"
  check emit_llvm "calls the runtime's all-reduce" contains "$TMP/emit_llvm.out" "shardrt_all_reduce"
fi

# --- explain ------------------------------------------------------------------
# One remark per value with its origin (stderr, MLIR diagnostics), then every
# collective with the conflict that caused it (stdout).
if expect_ok explain -- explain "$SEED" --mesh data=2; then
  check explain "remarks name the origin of a value" \
    contains "$TMP/explain.err" "remark: "
  check explain "remarks say where a sharding came from" contains "$TMP/explain.err" " <- "
  check explain "lists the collectives" contains "$TMP/explain.out" "collectives inserted by partitioning (2)"
  check explain "gives each collective's cause" contains "$TMP/explain.out" "because: pending sum"
fi

# --- report -------------------------------------------------------------------
if expect_ok emit_local_uncombined -- compile "$SEED" --mesh data=4 --emit=local --combine-bytes=0; then
  check emit_local_uncombined "2 comm.all_reduce with --combine-bytes=0" \
    test "$(count_of "$TMP/emit_local_uncombined.out" "comm.all_reduce")" = 2
fi
expect_error combine_bytes_bad 2 "--combine-bytes=lots" "byte count" -- \
  compile "$SEED" --combine-bytes=lots

if expect_ok report -- report "$SEED"; then
  out="$TMP/report.out"
  check report "combined section" contains "$out" "combined in the local program: 2 all-reduces issued as 1"
  check report "header says 2 collectives" contains "$out" 'collectives on mesh ["data"=4]: 2'
  check report "2 all_reduce rows" test "$(grep -cE '^ +all_reduce ' "$out")" = 2
  loss_line=$(grep -n '%loss = garray.mean' "$SEED" | head -1 | cut -d: -f1)
  # The gradient's partial sum stays pending through the scaling by 2/N and
  # is reduced where grad is defined.
  grad_line=$(grep -n '%grad = garray.mul' "$SEED" | head -1 | cut -d: -f1)
  check report "names the source line of the loss ($loss_line)" \
    contains "$out" "linear_regression_step.mlir:$loss_line:"
  check report "names the source line of grad ($grad_line)" \
    contains "$out" "linear_regression_step.mlir:$grad_line:"
  check report "over the data axis" contains "$out" 'over ["data"]'
  if [[ -s "$TMP/out4/report.txt" ]]; then
    check report "same as report.txt of compile -o" cmp -s "$out" "$TMP/out4/report.txt"
  fi
fi
if expect_ok report_data8 -- report "$SEED" --mesh data=8; then
  check report_data8 "mesh data=8, 2 collectives" contains "$TMP/report_data8.out" 'collectives on mesh ["data"=8]: 2'
fi
if expect_ok compile_with_report -- compile "$SEED" --report -o "$TMP/out_report"; then
  check compile_with_report "prints the report" contains "$TMP/compile_with_report.out" "collectives on mesh"
fi

# --- help -----------------------------------------------------------------------
if expect_ok help -- --help; then
  check help "lists the commands" contains "$TMP/help.out" "compile"
  check help "lists the commands" contains "$TMP/help.out" "explain"
  check help "says how to ask a command" contains "$TMP/help.out" "COMMAND --help"
  check help "hides LLVM's options" not_contains "$TMP/help.out" "print-after-all"
fi
for cmd in compile run report explain; do
  if expect_ok "help_$cmd" -- "$cmd" --help; then
    check "help_$cmd" "lists --mesh" contains "$TMP/help_$cmd.out" "--mesh"
    check "help_$cmd" "hides LLVM's options" not_contains "$TMP/help_$cmd.out" "print-after-all"
  fi
done
if expect_ok help_run_flags -- run --help; then
  check help_run_flags "lists --in" contains "$TMP/help_run_flags.out" "--in=<NAME=FILE.npy>"
  check help_run_flags "lists --steps" contains "$TMP/help_run_flags.out" "--steps"
fi

finish
