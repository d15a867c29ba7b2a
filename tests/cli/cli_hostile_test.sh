#!/usr/bin/env bash
# shardc on hostile input: sizes that cannot be addressed, foreign ops,
# nesting that would overflow the parser's stack, names that would leave
# --out, tampered artifacts and meshes of many devices. Every case must end
# with its documented exit status and a message, never a crash or a hang.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

USAGE=2 COMPILE=3 INPUT=4 OUTPUT=6

model() { # model NAME: the text on stdin becomes $TMP/NAME.mlir
  cat >"$TMP/$1.mlir"
}

# --- sizes past the documented limits (sharding/Limits.h) ---------------------
model huge_dim <<'M'
garray.mesh @mesh ["data" = 2]
func.func @main(%x: tensor<4611686018427387904x2xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<4611686018427387904x2xf32> {
  %0 = garray.neg %x : tensor<4611686018427387904x2xf32>
  return %0 : tensor<4611686018427387904x2xf32>
}
M
expect_error huge_dim $COMPILE "huge_dim.mlir:2:" "argument #0 of @main" \
  "dim 0 has size 4611686018427387904" "2^40" -- compile "$TMP/huge_dim.mlir" -o "$TMP/o1"

model huge_bytes <<'M'
func.func @main(%x: tensor<1099511627776x1099511627776xf32>) -> tensor<1099511627776x1099511627776xf32> {
  return %x : tensor<1099511627776x1099511627776xf32>
}
M
expect_error huge_bytes $COMPILE "argument #0 of @main" "does not fit in 64 bits" \
  -- report "$TMP/huge_bytes.mlir"

model huge_constant <<'M'
func.func @main() -> tensor<100000000xf32> {
  %0 = garray.constant dense<1.0> : tensor<100000000xf32>
  return %0 : tensor<100000000xf32>
}
M
expect_error huge_constant $COMPILE "huge_constant.mlir:2:" "100000000 elements" "2^24" \
  "broadcast_in_dim" -- compile "$TMP/huge_constant.mlir" -o "$TMP/o2"

{
  echo 'func.func @main() -> tensor<16777216xf32> {'
  for i in 0 1 2 3 4; do
    echo "  %c$i = garray.constant dense<1.0> : tensor<16777216xf32>"
  done
  echo '  return %c4 : tensor<16777216xf32>'
  echo '}'
} >"$TMP/many_constants.mlir"
expect_error many_constants $COMPILE "many_constants.mlir:6:" "2^26" "in all" \
  -- compile "$TMP/many_constants.mlir" -o "$TMP/o2"

# --- MLIR bytecode is not a model: refused, never handed to the reader --------
SHARDC_OPT="$(dirname "$SHARDC")/shardc-opt"
if [[ -x "$SHARDC_OPT" ]]; then
  "$SHARDC_OPT" "$SEED" --emit-bytecode -o "$TMP/seed.mlirbc"
  expect_error bytecode $COMPILE "seed.mlirbc:1:1" "bytecode" -- compile "$TMP/seed.mlirbc" -o "$TMP/o6"
else
  echo "skip bytecode: no shardc-opt at $SHARDC_OPT"
fi

# --- the input contract: foreign ops are named before any verifier runs -------
model foreign_op <<'M'
func.func @main(%x: tensor<2x2xf32>, %i: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = linalg.transpose ins(%x : tensor<2x2xf32>) outs(%i : tensor<2x2xf32>) permutation = [1, 18446744073709551615]
  return %0 : tensor<2x2xf32>
}
M
expect_error foreign_op_hostile $COMPILE "foreign_op.mlir:2:" -- compile "$TMP/foreign_op.mlir" -o "$TMP/o3"
sed -e 's/permutation = \[1, 18446744073709551615\]/permutation = [1, 0]/' "$TMP/foreign_op.mlir" \
  >"$TMP/foreign_op2.mlir"
expect_error foreign_op $COMPILE "foreign_op2.mlir:2:" "'linalg.transpose'" "garray ops" \
  -- compile "$TMP/foreign_op2.mlir" -o "$TMP/o3"

model local_op <<'M'
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = comm.all_reduce <sum> %x groups = [[0, 1]] : tensor<2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
M
expect_error local_op $COMPILE "'comm.all_reduce'" -- explain "$TMP/local_op.mlir"

# --- nesting deeper than the parser can take ----------------------------------
{
  printf 'func.func @main() -> tensor<1xf32> {\n  %%0 = garray.constant dense<'
  for ((i = 0; i < 20000; ++i)); do printf '['; done
  printf '1.0'
  for ((i = 0; i < 20000; ++i)); do printf ']'; done
  printf '> : tensor<1xf32>\n  return %%0 : tensor<1xf32>\n}\n'
} >"$TMP/deep.mlir"
expect_error deep_nesting $COMPILE "deep.mlir:2:" "nest deeper than 256" \
  -- compile "$TMP/deep.mlir" -o "$TMP/o4"

# --- names are file names inside --out ----------------------------------------
sed -e 's/garray.name = "loss"/garray.name = "..\/..\/escaped"/' "$SEED" >"$TMP/escape.mlir"
if cmp -s "$SEED" "$TMP/escape.mlir"; then
  echo "test setup: the seed has no output named loss" >&2
  exit 1
fi
mkdir -p "$TMP/a/b"
expect_error name_escapes $COMPILE "escape.mlir" "is named '../../escaped'" "A-Z a-z 0-9" \
  -- run "$TMP/escape.mlir" "${SEED_IN[@]}" --out "$TMP/a/b/out"
if [[ -e "$TMP/a/escaped.npy" || -e "$TMP/escaped.npy" ]]; then
  fail name_escapes "a file was written outside --out"
fi
for case in 'empty:""' 'dot:"."' 'newline:"a\\nb"' 'hidden:".x"'; do
  sed -e "s/garray.name = \"loss\"/garray.name = ${case#*:}/" "$SEED" >"$TMP/badname.mlir"
  expect_error "name_${case%%:*}" $COMPILE "is named" -- compile "$TMP/badname.mlir" -o "$TMP/o5"
done
expect_error out_empty $USAGE "--out needs a folder" -- run "$SEED" "${SEED_IN[@]}" --out ""

# A successful run leaves its outputs and no staging folder behind, with an
# absolute and with a relative --out (the tests run in $TMP).
if expect_ok run_out -- run "$SEED" "${SEED_IN[@]}" --out "$TMP/run_out"; then
  check run_out "writes loss.npy" test -f "$TMP/run_out/loss.npy"
  check run_out "leaves no staging folder" test -z "$(ls -A "$TMP/run_out" | grep '^\.')"
fi
if expect_ok run_out_relative -- run "$SEED" "${SEED_IN[@]}" --out rel/out; then
  check run_out_relative "writes rel/out/loss.npy" test -f "$TMP/rel/out/loss.npy"
  check run_out_relative "leaves no staging folder" test -z "$(ls -A "$TMP/rel/out" | grep '^\.')"
fi

# --- tampered artifacts are refused before they are loaded --------------------
if expect_ok compile_artifact -- compile "$SEED" -o "$TMP/art"; then
  tamper() { # tamper NAME SED-SCRIPT: a copy of the artifact with its manifest edited
    rm -rf "$TMP/$1" && cp -r "$TMP/art" "$TMP/$1"
    sed -i -e "$2" "$TMP/$1/manifest.json"
    if cmp -s "$TMP/art/manifest.json" "$TMP/$1/manifest.json"; then
      echo "test setup: sed '$2' did not change the manifest" >&2
      exit 1
    fi
  }
  tamper t_local_shape '0,/"local_shape": \[/{s/"local_shape": \[/"local_shape": [ 7,/}'
  expect_error tampered_local_shape $INPUT "manifest.json" -- run "$TMP/t_local_shape" "${SEED_IN[@]}"
  tamper t_mesh '/"sizes": \[/,/\]/{s/^\( *\)4$/\1400000/}'
  expect_error tampered_mesh $INPUT "manifest.json" "devices" -- run "$TMP/t_mesh" "${SEED_IN[@]}"
  tamper t_object_path 's/"object": "model.o"/"object": "..\/..\/..\/dev\/zero"/'
  expect_error tampered_object_path $INPUT "not a file name inside the artifact folder" \
    -- run "$TMP/t_object_path" "${SEED_IN[@]}"
  rm -rf "$TMP/t_symlink" && cp -r "$TMP/art" "$TMP/t_symlink"
  ln -sf /dev/zero "$TMP/t_symlink/model.o"
  expect_error tampered_object_symlink $INPUT "not a regular file" \
    -- run "$TMP/t_symlink" "${SEED_IN[@]}"
  rm -rf "$TMP/t_bytes" && cp -r "$TMP/art" "$TMP/t_bytes"
  printf 'x' >>"$TMP/t_bytes/model.o"
  expect_error tampered_object_bytes $INPUT "SHA-256" "recompile" \
    -- run "$TMP/t_bytes" "${SEED_IN[@]}"
  # An edit the bounds allow (a valid name) still disagrees with the
  # object's own record of its buffers.
  tamper t_record 's/"name": "loss"/"name": "lossy"/'
  expect_error tampered_record $INPUT "records" "manifest.json describes" "recompile" \
    -- run "$TMP/t_record" "${SEED_IN[@]}"
  tamper t_name 's/"name": "loss"/"name": "..\/loss"/'
  expect_error tampered_output_name $INPUT "manifest.json" -- run "$TMP/t_name" "${SEED_IN[@]}"
fi

# --- faults at run time: a failed or stalled rank ends every rank -----------
# The test-only hook SHARDRT_TEST_FAULT=rank=R,collective=K,kind=fail|stall.
SHARDRT_TEST_FAULT=rank=2,collective=0,kind=fail expect_error fault_fail 5 \
  "rank 2" "injected fault in collective #0" -- run "$SEED" "${SEED_IN[@]}" --out "$TMP/fault_out"
SHARDRT_TEST_FAULT=rank=1,collective=0,kind=stall expect_error fault_stall 5 \
  "timed out after 2 s" "waiting for ranks 1" -- run "$SEED" "${SEED_IN[@]}" --timeout 2 \
  --out "$TMP/fault_out"
if compgen -G "$TMP/fault_out/*.npy" >/dev/null || compgen -G "$TMP/fault_out/.*" | grep -q partial; then
  fail fault_outputs "a failed run left outputs in --out"
fi
expect_error timeout_bad $USAGE "--timeout 0" "positive" -- run "$SEED" "${SEED_IN[@]}" --timeout 0

# --- many devices: planning stays fast (a hang guard, not a timing) -----------
model big_mesh <<'M'
garray.mesh @mesh ["x" = 128, "y" = 128]
func.func @main(%a: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("x", None)>})
    -> (tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("y", None)>}) {
  return %a : tensor<8x8xf32>
}
M
SHARDC_TIMEOUT_S=60 expect_ok big_mesh_report -- report "$TMP/big_mesh.mlir"

# 65,536 devices (the limit) and 100 reshards, each a 65,536-pair permute,
# compiled to an object: linear planning and verification (a hang guard).
{
  echo 'garray.mesh @mesh ["a" = 256, "b" = 256]'
  echo 'func.func @main(%x: tensor<512x512xf32> {garray.sharding = #garray.sharding<@mesh, P("a", "b")>}) -> tensor<512x512xf32> {'
  prev='%x'
  for ((i = 0; i < 100; ++i)); do
    if ((i % 2)); then spec='P("a", "b")'; else spec='P("b", "a")'; fi
    echo "  %c$i = garray.sharding_constraint $prev : tensor<512x512xf32> to #garray.sharding<@mesh, $spec>"
    echo "  %v$i = garray.exp %c$i : tensor<512x512xf32>"
    prev="%v$i"
  done
  echo "  return $prev : tensor<512x512xf32>"
  echo '}'
} >"$TMP/max_mesh.mlir"
SHARDC_TIMEOUT_S=60 expect_ok max_mesh_compile -- compile "$TMP/max_mesh.mlir" -o "$TMP/o_max_mesh"

finish
