#!/usr/bin/env bash
# `shardc import` and JAX programs given to the other commands directly:
# exit statuses, positional and named inputs, training state fed back by
# `run --steps`, refused forms. (The numbers are checked against JAX's in
# //tests/import:import_jax_test.)
source "$(dirname "$0")/cli_lib.sh"

JAX="$ROOT/tests/import/jax"
inputs_of() { # NAME: the --in flags for an export's inputs, by name
  local f
  for f in $(ls "$JAX/$1/inputs/" | sort); do
    echo "--in ${f%.npy}=$JAX/$1/inputs/$f"
  done
}

expect_ok import_linreg -- import "$JAX/linreg.mlir" -o "$TMP/linreg.garray.mlir"
check import_linreg "the garray model names its arguments" \
  contains "$TMP/linreg.garray.mlir" 'garray.name = "X"'
check import_linreg "the garray model has its mesh" \
  contains "$TMP/linreg.garray.mlir" 'garray.mesh @mesh ["data" = 4]'
expect_ok import_stdout -- import "$JAX/linreg.mlir"
check import_stdout "prints the model" contains "$TMP/import_stdout.out" "garray.dot_general"

# The imported model and the JAX file run alike, by name or by position.
expect_ok run_named -- run "$JAX/linreg.mlir" --in "X=$JAX/linreg/inputs/X.npy" \
  --in "y=$JAX/linreg/inputs/y.npy" --in "w=$JAX/linreg/inputs/w.npy"
expect_ok run_positional -- run "$JAX/linreg.mlir" --in "arg0=$JAX/linreg/inputs/X.npy" \
  --in "arg1=$JAX/linreg/inputs/y.npy" --in "arg2=$JAX/linreg/inputs/w.npy"
check run_positional "positional inputs give the named run's outputs" \
  cmp -s "$TMP/run_named.out" "$TMP/run_positional.out"
expect_ok run_imported -- run "$TMP/linreg.garray.mlir" --mesh data=3 \
  --in "X=$JAX/linreg/inputs/X.npy" --in "y=$JAX/linreg/inputs/y.npy" \
  --in "w=$JAX/linreg/inputs/w.npy"
check run_imported "names the outputs as JAX does" contains "$TMP/run_imported.out" "result.loss ="
expect_error positional_twice 2 "given twice" -- run "$JAX/linreg.mlir" \
  --in "X=$JAX/linreg/inputs/X.npy" --in "arg0=$JAX/linreg/inputs/X.npy" \
  --in "arg1=$JAX/linreg/inputs/y.npy" --in "arg2=$JAX/linreg/inputs/w.npy"

# Donated training state (Adam's parameters and moments) feeds back.
mapfile -t mlp_in < <(inputs_of mlp_2x2)
expect_ok run_steps -- run "$JAX/mlp_2x2.mlir" --steps 3 ${mlp_in[*]}
check run_steps "prints the loss of each step" contains "$TMP/run_steps.out" "step 3: loss ="
check run_steps "ran three steps" contains "$TMP/run_steps.out" "ran 3 steps on 4 ranks"

# A PRNG key passed in and returned (uint32) and uint8 pixels: read and
# written as u32 and u8, the key fed back as state. Two runs of one step
# give what one run of two steps gives, and so does the standalone
# executable.
mapfile -t keyed_in < <(inputs_of keyed)
expect_ok keyed_one -- run "$JAX/keyed.mlir" ${keyed_in[*]} --out "$TMP/keyed1"
check keyed_one "prints the key unsigned" grep -qE '^key = \[[0-9]+, [0-9]+\]' "$TMP/keyed_one.out"
check keyed_one "writes the key as uint32" \
  grep -qF "'descr': '<u4'" "$TMP/keyed1/key.npy"
check keyed_one "writes the brightest pixels as uint8" \
  grep -qF "'descr': '|u1'" "$TMP/keyed1/result2.brightest.npy"
expect_ok keyed_again -- run "$JAX/keyed.mlir" --in "key=$TMP/keyed1/key.npy" \
  --in "params.W1=$TMP/keyed1/params.W1.npy" --in "params.W2=$TMP/keyed1/params.W2.npy" \
  --in "pixels=$JAX/keyed/inputs/pixels.npy" --in "labels=$JAX/keyed/inputs/labels.npy" \
  --out "$TMP/keyed2"
expect_ok keyed_steps -- run "$JAX/keyed.mlir" --steps 2 ${keyed_in[*]} --out "$TMP/keyed_steps"
for f in key params.W1 result2.bits; do
  check keyed_steps "two steps feed $f back as two runs do" \
    cmp -s "$TMP/keyed2/$f.npy" "$TMP/keyed_steps/$f.npy"
done
expect_ok keyed_exe -- run "$JAX/keyed.mlir" --exe --steps 2 ${keyed_in[*]} --out "$TMP/keyed_exe"
check keyed_exe "the executable gives the same key" \
  cmp -s "$TMP/keyed_steps/key.npy" "$TMP/keyed_exe/key.npy"
expect_error keyed_wrong_dtype 4 "argument 'pixels' must be u8 but the input is i32" \
  "astype('uint8')" -- run "$JAX/keyed.mlir" --in "pixels=$JAX/keyed/inputs/labels.npy" \
  --in "key=$JAX/keyed/inputs/key.npy" --in "params.W1=$JAX/keyed/inputs/params.W1.npy" \
  --in "params.W2=$JAX/keyed/inputs/params.W2.npy" --in "labels=$JAX/keyed/inputs/labels.npy"

# uint16 and int16 at the boundary (16-bit pixels): read and written as u16
# and i16; a brightness sum over a sharded dim is reduced across devices
# (as 32-bit integers, wrapping as int16 does) and a maximum in unsigned
# order.
cat >"$TMP/pixels16.mlir" <<'MLIR'
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["data"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}]>}], function_type = (tensor<2x4xui16>, tensor<2x4xi16>) -> (tensor<2xui16>, tensor<2xi16>), res_attrs = [{jax.result_info = "brightest"}, {jax.result_info = "total"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%px: tensor<2x4xui16> loc("pixels"), %d: tensor<2x4xi16> loc("deltas")):
    %z = "stablehlo.constant"() <{value = dense<0> : tensor<ui16>}> : () -> tensor<ui16>
    %b = "stablehlo.reduce"(%px, %z) <{dimensions = array<i64: 1>}> ({
    ^bb0(%p: tensor<ui16>, %q: tensor<ui16>):
      %m = "stablehlo.maximum"(%p, %q) : (tensor<ui16>, tensor<ui16>) -> tensor<ui16>
      "stablehlo.return"(%m) : (tensor<ui16>) -> ()
    }) : (tensor<2x4xui16>, tensor<ui16>) -> tensor<2xui16>
    %zi = "stablehlo.constant"() <{value = dense<0> : tensor<i16>}> : () -> tensor<i16>
    %s = "stablehlo.reduce"(%d, %zi) <{dimensions = array<i64: 1>}> ({
    ^bb0(%p: tensor<i16>, %q: tensor<i16>):
      %a = "stablehlo.add"(%p, %q) : (tensor<i16>, tensor<i16>) -> tensor<i16>
      "stablehlo.return"(%a) : (tensor<i16>) -> ()
    }) : (tensor<2x4xi16>, tensor<i16>) -> tensor<2xi16>
    "func.return"(%b, %s) : (tensor<2xui16>, tensor<2xi16>) -> ()
  }) : () -> ()
}) : () -> ()
MLIR
"$NPY" write "$TMP/pixels.npy" u16 2,4 1 65535 7 32768 3 2 40000 5 || exit 1
"$NPY" write "$TMP/deltas.npy" i16 2,4 30000 30000 1 2 -7 5 -32768 -1 || exit 1
if expect_ok pixels16 -- run "$TMP/pixels16.mlir" --in "pixels=$TMP/pixels.npy" \
    --in "deltas=$TMP/deltas.npy" --out "$TMP/pixels16"; then
  check pixels16 "the brightest pixel of each row, unsigned" \
    "$NPY" check "$TMP/pixels16/brightest.npy" u16 2 65535 40000
  check pixels16 "row sums wrap as int16" \
    "$NPY" check "$TMP/pixels16/total.npy" i16 2 -5533 32765
fi

# A transformer training step is large enough to compile in partitions
# (LlvmCodegen.h): the object is the same on one thread and on three, and
# the partitioned object runs.
if expect_ok compile_one_thread -- compile "$JAX/transformer.mlir" --compile-threads 1 --timing \
    -o "$TMP/transformer1" &&
  expect_ok compile_three_threads -- compile "$JAX/transformer.mlir" --compile-threads 3 \
    -o "$TMP/transformer3"; then
  check compile_one_thread "compiles in partitions" \
    grep -qE 'code generation \([0-9]+ partitions\)' "$TMP/compile_one_thread.err"
  check compile_three_threads "the same object as on one thread" \
    cmp -s "$TMP/transformer1/model.o" "$TMP/transformer3/model.o"
  mapfile -t transformer_in < <(inputs_of transformer)
  expect_ok run_partitioned -- run "$TMP/transformer3" --steps 2 ${transformer_in[*]}
  check run_partitioned "ran two steps" contains "$TMP/run_partitioned.out" "ran 2 steps on 4 ranks"
fi

# The partitions' objects pass through $TMPDIR; one that cannot be used
# is named, with the fix, and nothing is written.
TMPDIR="$TMP/no/such/tmp" expect_error compile_no_tmpdir 3 "$TMP/no/such/tmp" \
  "set TMPDIR to a writable folder" \
  -- compile "$JAX/transformer.mlir" -o "$TMP/transformer_no_tmp"
check compile_no_tmpdir "nothing is written" test ! -e "$TMP/transformer_no_tmp"

expect_ok report_jax -- report "$JAX/mlp_2x2.mlir"
check report_jax "reports collectives" contains "$TMP/report_jax.out" 'collectives on mesh ["data"=2, "model"=2]'
# Locations are the user's lines (the innermost call site of JAX's trace),
# never MLIR's printed call-site chains.
check report_jax "user lines" grep -qE ' at [^ ]*models\.py:[0-9]+:[0-9]+' "$TMP/report_jax.out"
check report_jax "no call-site chains" not_contains "$TMP/report_jax.out" "callsite("
expect_ok explain_jax -- explain "$JAX/embedding.mlir"

# Refused inputs: exit 3, saying what to do instead.
printf 'ML\xefR\x00vhlo.func_v1 ...' >"$TMP/export.mlirbc"
expect_error vhlo 3 "serialized (VHLO) StableHLO" "tools/jax_export.py" -- import "$TMP/export.mlirbc"
cat >"$TMP/custom.mlir" <<'MLIR'
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<4xf32>):
    %0 = "stablehlo.custom_call"(%a) <{call_target_name = "my_kernel"}> : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
MLIR
expect_error unsupported_import 3 "custom.mlir:4:10" "'stablehlo.custom_call' has no garray counterpart" \
  -- import "$TMP/custom.mlir" -o "$TMP/never.mlir"
expect_error unsupported_compile 3 "'stablehlo.custom_call'" -- compile "$TMP/custom.mlir" -o "$TMP/o"
expect_error unsupported_run 3 "'stablehlo.custom_call'" -- run "$TMP/custom.mlir"
check unsupported_import "nothing is written on error" test ! -e "$TMP/never.mlir"
expect_error import_no_dir 6 "cannot write" -- import "$JAX/linreg.mlir" -o "$TMP/no/such/dir/x.mlir"

finish
