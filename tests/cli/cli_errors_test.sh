#!/usr/bin/env bash
# shardc on bad input: every case must exit with the ExitCode of
# compiler/tools/shardc.cpp (2 usage, 3 compile, 4 input, 5 run, 6 output),
# name what was wrong on stderr (argument, dimension, axis, file), and neither
# crash nor hang. Inputs are built in $TEST_TMPDIR from the seed sample.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

USAGE=2 COMPILE=3 INPUT=4 RUN=5 OUTPUT=6

# ---------------------------------------------------------------------------
# Models: the seed with one thing broken.
# ---------------------------------------------------------------------------
variant() { # variant NAME SED-SCRIPT
  sed -e "$2" "$SEED" >"$TMP/$1.mlir"
  if cmp -s "$SEED" "$TMP/$1.mlir"; then
    echo "test setup: sed '$2' did not change the seed" >&2
    exit 1
  fi
}
# Source lines the diagnostics must point at (found, not hard-coded, so that
# comments added to the sample do not break the test).
X_LINE=$(grep -n '%X: tensor' "$SEED" | head -1 | cut -d: -f1)
SUB_LINE=$(grep -n 'garray.sub %pred, %y' "$SEED" | head -1 | cut -d: -f1)
if [[ -z "$X_LINE" || -z "$SUB_LINE" ]]; then
  echo "test setup: the seed no longer has the lines this test edits" >&2
  exit 1
fi

variant unknown_axis 's/P("data", None)/P("batch", None)/'
variant axis_twice 's/P("data", None)/P("data", "data")/'
variant axis_twice_tuple 's/P("data", None)/P(("data", "data"), None)/'
variant spec_too_long 's/P("data", None)/P("data", None, None)/'
variant no_parse 's/garray.sub %pred, %y/garray.sub %pred,, %y/'
variant unknown_op 's/garray.sub %pred, %y/garray.frobnicate %pred, %y/'

expect_error sharding_unknown_axis $COMPILE \
  "unknown_axis.mlir:$X_LINE:" "argument 'X'" '"batch"' "is not an axis of mesh @mesh" \
  -- compile "$TMP/unknown_axis.mlir" -o "$TMP/o1"

expect_error sharding_axis_twice $COMPILE \
  "axis_twice.mlir:$X_LINE:" '"data"' "appears twice" \
  -- compile "$TMP/axis_twice.mlir" -o "$TMP/o2"

expect_error sharding_axis_twice_in_one_dim $COMPILE \
  "axis_twice_tuple.mlir:$X_LINE:" '"data"' "appears twice" \
  -- compile "$TMP/axis_twice_tuple.mlir" -o "$TMP/o3"

expect_error sharding_more_entries_than_rank $COMPILE \
  "spec_too_long.mlir:$X_LINE:" "argument 'X'" "3 entries" "rank 2" \
  -- compile "$TMP/spec_too_long.mlir" -o "$TMP/o4"

# Shapes that do not divide over their mesh axes are no error any more: see
# cli_uneven_test.sh.

expect_error model_does_not_parse $COMPILE \
  "no_parse.mlir:$SUB_LINE:" "expected SSA operand" \
  -- compile "$TMP/no_parse.mlir" -o "$TMP/o6"

expect_error model_unknown_op $COMPILE \
  "unknown_op.mlir:$SUB_LINE:" "garray.frobnicate" \
  -- compile "$TMP/unknown_op.mlir" -o "$TMP/o7"

expect_error model_file_missing $INPUT \
  "$TMP/no_such_model.mlir" \
  -- compile "$TMP/no_such_model.mlir" -o "$TMP/o8"

: >"$TMP/empty.mlir"
expect_error model_empty $COMPILE \
  "no function to compile" \
  -- compile "$TMP/empty.mlir" -o "$TMP/o9"

expect_error entry_missing $COMPILE \
  "no function named 'nosuch'" "the model defines @" \
  -- compile "$SEED" --entry nosuch -o "$TMP/o10"
expect_error ruleless_tensor_op $COMPILE \
  "'arith.addf' on tensors is not an op shardc compiles" "garray.add for arith.addf" \
  "!not bufferized" \
  -- compile "$ROOT/tests/cli/ruleless_tensor_op.mlir" -o "$TMP/o10c"
expect_error entry_empty 2 "--entry needs a function name" \
  -- compile "$SEED" --entry "" -o "$TMP/o10b"
# --entry @main names main (as the IR writes it).
expect_ok entry_at -- report "$SEED" --entry @main --mesh data=2
expect_error mesh_empty_entry 2 "has an empty entry; expected AXIS=N pairs" \
  -- report "$SEED" --mesh "data=2,,x=2"
expect_error mesh_empty 2 "has an empty entry" -- report "$SEED" --mesh ""

# ---------------------------------------------------------------------------
# --mesh. ExitCode says a bad command line is 2; the compiler's status 3 is
# accepted here too, cli_regressions_test.sh pins 2.
# ---------------------------------------------------------------------------
expect_error mesh_unknown_axis "$USAGE|$COMPILE" \
  "--mesh" '"model"' '"data" (@mesh)' \
  -- run "$SEED" --mesh model=4 "${SEED_IN[@]}"

expect_error mesh_extra_axis "$USAGE|$COMPILE" \
  "--mesh" '"model"' \
  -- compile "$SEED" --mesh data=2,model=2 -o "$TMP/o11"

expect_error mesh_zero "$USAGE|$COMPILE" \
  "--mesh" "data=0" "positive" \
  -- run "$SEED" --mesh data=0 "${SEED_IN[@]}"

expect_error mesh_negative "$USAGE|$COMPILE" \
  "--mesh" "data=-2" "positive" \
  -- compile "$SEED" --mesh data=-2 -o "$TMP/o12"

expect_error mesh_not_a_number "$USAGE|$COMPILE" \
  "--mesh" "data=four" \
  -- compile "$SEED" --mesh data=four -o "$TMP/o13"

expect_error compile_threads_zero $USAGE \
  "--compile-threads 0" "from 1 to 1024" \
  -- compile "$SEED" --compile-threads 0 -o "$TMP/o_threads0"

expect_error compile_threads_not_a_number $USAGE \
  "--compile-threads two" "from 1 to 1024" \
  -- compile "$SEED" --compile-threads two -o "$TMP/o_threads1"

# A hand-written collective_permute names devices; a --mesh that leaves
# fewer is the reason its pairs are wrong, and the error says so.
cat >"$TMP/permute.mlir" <<'EOF'
garray.mesh @mesh ["x" = 4]
func.func @main(%x: tensor<8xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("x")>}) -> tensor<8xf32> {
  %0 = garray.collective_permute %x on @mesh ["x"] pairs = [0, 3, 3, 0]
      {garray.sharding = #garray.sharding<@mesh, P("x")>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}
EOF
expect_ok permute_as_written -- compile "$TMP/permute.mlir" -o "$TMP/o14"
expect_error mesh_drops_permute_devices "$COMPILE" \
  "permute.mlir:3:8:" "device 3 is not a device of mesh @mesh" \
  "--mesh x=2 gives @mesh 2 devices" 'the program wrote ["x" = 4]' "compile without that --mesh" \
  -- compile "$TMP/permute.mlir" --mesh x=2 -o "$TMP/o15"

# ---------------------------------------------------------------------------
# Inputs (.npy files)
# ---------------------------------------------------------------------------
"$NPY" write "$TMP/X_8x3.npy" f32 8,3 1 || exit 1
"$NPY" write "$TMP/X_16.npy" f32 16 1 || exit 1
"$NPY" write "$TMP/X_f64.npy" f64 8,2 1 || exit 1
"$NPY" write "$TMP/X_i32.npy" i32 8,2 1 || exit 1
"$NPY" write "$TMP/X_ok.npy" f32 8,2 1 || exit 1
size=$(wc -c <"$TMP/X_ok.npy")
head -c $((size - 10)) "$TMP/X_ok.npy" >"$TMP/X_truncated.npy"
head -c 40 "$TMP/X_ok.npy" >"$TMP/X_truncated_header.npy"
printf 'this is not a .npy file, just some text that is long enough to have a header\n%.0s' 1 2 3 \
  >"$TMP/X_text.npy"
: >"$TMP/X_empty.npy"
mkdir -p "$TMP/X_dir.npy"

expect_error npy_missing_file $INPUT \
  "--in X=" "$TMP/missing.npy" "No such file" \
  -- run "$SEED" --in "X=$TMP/missing.npy" --in "y=$SEED_DATA/y.npy" --in "w=$SEED_DATA/w.npy"

expect_error npy_wrong_shape $INPUT \
  "argument 'X'" "(8, 2)" "(8, 3)" \
  -- run "$SEED" --in "X=$TMP/X_8x3.npy" --in "y=$SEED_DATA/y.npy" --in "w=$SEED_DATA/w.npy"

expect_error npy_wrong_rank $INPUT \
  "argument 'X'" "(8, 2)" "(16,)" \
  -- run "$SEED" --in "X=$TMP/X_16.npy" --in "y=$SEED_DATA/y.npy" --in "w=$SEED_DATA/w.npy"

expect_error npy_wrong_dtype_f64 $INPUT \
  "argument 'X'" "f32" "f64" \
  -- run "$SEED" --in "X=$TMP/X_f64.npy" --in "y=$SEED_DATA/y.npy" --in "w=$SEED_DATA/w.npy"

expect_error npy_wrong_dtype_i32 $INPUT \
  "argument 'X'" "f32" "i32" \
  -- run "$SEED" --in "X=$TMP/X_i32.npy" --in "y=$SEED_DATA/y.npy" --in "w=$SEED_DATA/w.npy"

expect_error npy_truncated_data $INPUT \
  "--in X=" "X_truncated.npy" "truncated" \
  -- run "$SEED" --in "X=$TMP/X_truncated.npy" --in "y=$SEED_DATA/y.npy" --in "w=$SEED_DATA/w.npy"

expect_error npy_truncated_header $INPUT \
  "--in X=" "X_truncated_header.npy" "truncated" \
  -- run "$SEED" --in "X=$TMP/X_truncated_header.npy" --in "y=$SEED_DATA/y.npy" --in "w=$SEED_DATA/w.npy"

expect_error npy_not_npy $INPUT \
  "--in X=" "X_text.npy" "not a .npy file" \
  -- run "$SEED" --in "X=$TMP/X_text.npy" --in "y=$SEED_DATA/y.npy" --in "w=$SEED_DATA/w.npy"

expect_error npy_empty_file $INPUT \
  "--in X=" "X_empty.npy" \
  -- run "$SEED" --in "X=$TMP/X_empty.npy" --in "y=$SEED_DATA/y.npy" --in "w=$SEED_DATA/w.npy"

expect_error npy_is_a_directory $INPUT \
  "--in X=" "X_dir.npy" "not a regular file" \
  -- run "$SEED" --in "X=$TMP/X_dir.npy" --in "y=$SEED_DATA/y.npy" --in "w=$SEED_DATA/w.npy"

# ---------------------------------------------------------------------------
# --in names
# ---------------------------------------------------------------------------
expect_error in_unknown_argument $INPUT \
  "unknown argument 'Z'" "X, y, w" \
  -- run "$SEED" "${SEED_IN[@]}" --in "Z=$SEED_DATA/w.npy"

expect_error in_missing $INPUT \
  "missing input for argument 'w'" "(2,)" "--in w=" \
  -- run "$SEED" --in "X=$SEED_DATA/X.npy" --in "y=$SEED_DATA/y.npy"

expect_error in_none $INPUT \
  "missing input for argument 'X'" "--in X=" \
  -- run "$SEED"

expect_error in_given_twice $USAGE \
  "--in w" "twice" \
  -- run "$SEED" "${SEED_IN[@]}" --in "w=$SEED_DATA/w.npy"

expect_error in_not_name_equals_file $USAGE \
  "--in X" "NAME=FILE.npy" \
  -- run "$SEED" --in X

# ---------------------------------------------------------------------------
# Commands and options
# ---------------------------------------------------------------------------
expect_error no_command $USAGE "no command" "usage:" --
expect_error unknown_command $USAGE "unknown command 'bogus'" "usage:" -- bogus "$SEED"
expect_error unknown_option $USAGE "'--bogus'" "--help" -- compile "$SEED" --bogus
expect_error llvm_option $USAGE "unknown option '--print-after-all'" -- compile "$SEED" --print-after-all
expect_error no_model $USAGE "no model" -- run
expect_error two_models $USAGE "unexpected argument" "extra.mlir" -- compile "$SEED" extra.mlir
expect_error emit_bogus $USAGE "--emit=bogus" "not a phase" "partitioned" -- compile "$SEED" --emit=bogus
expect_error emit_bogus_spaced $USAGE "--emit=bogus" "not a phase" -- compile "$SEED" --emit bogus
expect_error target_bogus $USAGE "--target rocm" "not a target" "ptx" -- compile "$SEED" --target rocm
expect_error target_bogus_equals $USAGE "--target rocm" "not a target" -- compile "$SEED" --target=rocm -o "$TMP/o14"
expect_error backend_nccl $USAGE "--backend nccl" "not available" "--backend mpi" -- run "$SEED" --backend nccl "${SEED_IN[@]}"
expect_error backend_mpi_compile $USAGE "'--backend'" -- compile "$SEED" --backend mpi
# Outside mpirun the job is one process; the mesh wants four.
expect_error backend_mpi_one_process $RUN "has 4 devices but the MPI job has 1 processes" "mpirun -np 4" -- run "$SEED" --backend mpi "${SEED_IN[@]}"

# ---------------------------------------------------------------------------
# Compiled directories
# ---------------------------------------------------------------------------
if expect_ok compile_for_data4 -- compile "$SEED" --mesh data=4 -o "$TMP/out4"; then
  expect_error compiled_dir_other_mesh $USAGE \
    "$TMP/out4" 'compiled for mesh ["data"=4]' "data=2" "recompile" \
    -- run "$TMP/out4" --mesh data=2 "${SEED_IN[@]}"
  expect_error compiled_dir_other_axis $USAGE \
    "$TMP/out4" 'compiled for mesh ["data"=4]' "model=4" \
    -- run "$TMP/out4" --mesh model=4 "${SEED_IN[@]}"
  expect_error compiled_dir_wrong_input $INPUT \
    "argument 'X'" "(8, 3)" \
    -- run "$TMP/out4" --in "X=$TMP/X_8x3.npy" --in "y=$SEED_DATA/y.npy" --in "w=$SEED_DATA/w.npy"

  mkdir -p "$TMP/bad_manifest" "$TMP/no_object" "$TMP/bad_object"
  cp "$TMP/out4/"* "$TMP/bad_manifest/"
  cp "$TMP/out4/"* "$TMP/no_object/"
  cp "$TMP/out4/"* "$TMP/bad_object/"
  echo '{"format": "shardc-manifest-1",' >"$TMP/bad_manifest/manifest.json"
  rm "$TMP/no_object/model.o"
  head -c 1000 "$TMP/out4/model.o" >"$TMP/bad_object/model.o"
  expect_error compiled_dir_bad_manifest $INPUT \
    "bad_manifest/manifest.json" \
    -- run "$TMP/bad_manifest" "${SEED_IN[@]}"
  expect_error compiled_dir_no_object $INPUT \
    "no_object/model.o" \
    -- run "$TMP/no_object" "${SEED_IN[@]}"
  expect_error compiled_dir_truncated_object $INPUT \
    "bad_object/model.o" "SHA-256" "recompile" \
    -- run "$TMP/bad_object" "${SEED_IN[@]}"
fi
mkdir -p "$TMP/empty_dir"
expect_error dir_without_manifest $INPUT \
  "empty_dir" "without manifest.json" \
  -- run "$TMP/empty_dir" "${SEED_IN[@]}"

# ---------------------------------------------------------------------------
# Outputs
# ---------------------------------------------------------------------------
: >"$TMP/a_file"
expect_error out_under_a_file $OUTPUT \
  "a_file/results" \
  -- run "$SEED" "${SEED_IN[@]}" --out "$TMP/a_file/results"
expect_error compile_out_under_a_file $OUTPUT \
  "a_file/compiled" \
  -- compile "$SEED" -o "$TMP/a_file/compiled"

finish
