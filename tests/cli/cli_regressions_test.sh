#!/usr/bin/env bash
# Regressions: shardc command-line edge cases: options given last without a
# value, an axis given twice in --mesh, --mesh errors as usage errors
# (exit 2), --emit on a compiled directory, an undefined mesh named next to a
# defined one, dynamic shapes (rejected with a located, readable message),
# and the collectives of called functions (listed by explain and report).
set -u
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

USAGE=2 COMPILE=3

# P1: options without a value.
expect_error p1_emit_without_value $USAGE "--emit" -- compile "$SEED" --emit
check p1_emit_without_value "wrote nothing to ./out" test ! -e "$TMP/out"
expect_error p1_mesh_without_value $USAGE "--mesh" -- compile "$SEED" -o "$TMP/p1a" --mesh
expect_error p1_o_without_value $USAGE "-o" -- compile "$SEED" -o
expect_error p1_out_without_value $USAGE "--out" -- run "$SEED" "${SEED_IN[@]}" --out
expect_error p1_in_without_value $USAGE "--in" "NAME=FILE.npy" -- run "$SEED" "${SEED_IN[@]}" --in

# P2: one axis sized twice.
expect_error p2_mesh_axis_twice $USAGE '--mesh' 'data' 'twice' \
  -- run "$SEED" --mesh data=4,data=2 "${SEED_IN[@]}"
expect_error p2_mesh_flag_twice $USAGE '--mesh' 'data' 'twice' \
  -- run "$SEED" --mesh data=4 --mesh data=2 "${SEED_IN[@]}"

# P3: --mesh errors are usage errors, without a bogus :0:0: location.
expect_error p3_mesh_zero $USAGE "--mesh" "data=0" "positive" "!:0:0:" \
  -- run "$SEED" --mesh data=0 "${SEED_IN[@]}"
expect_error p3_mesh_unknown_axis $USAGE "--mesh" '"model"' "!:0:0:" \
  -- run "$SEED" --mesh model=4 "${SEED_IN[@]}"

# P4: --emit on a compiled directory.
if expect_ok p4_compile -- compile "$SEED" --mesh data=4 -o "$TMP/out4" --quiet; then
  expect_error p4_emit_on_compiled_dir $USAGE "--emit" \
    -- run "$TMP/out4" --emit=local "${SEED_IN[@]}"
fi

# P5: an undefined mesh next to a defined one.
sed 's/#garray.sharding<@mesh, P("data", None)>/#garray.sharding<@nomesh, P("data", None)>/' \
  "$SEED" >"$TMP/nomesh.mlir"
expect_error p5_undefined_mesh $COMPILE "nomesh.mlir:" "@nomesh" "no garray.mesh" \
  -- compile "$TMP/nomesh.mlir" -o "$TMP/p5"

# P6: dynamic shapes.
sed 's/tensor<8x2xf32>/tensor<?x2xf32>/g; s/tensor<8xf32>/tensor<?xf32>/g' "$SEED" >"$TMP/dynamic.mlir"
# garray arrays must have static shapes: rejected where the op uses them.
expect_error p6_dynamic_argument_rejected $COMPILE "dynamic.mlir:" "argument 'X'" "dim 0 is dynamic" \
  -- compile "$TMP/dynamic.mlir" -o "$TMP/p6a"
sed 's/tensor<8x2xf32>/tensor<?x2xf32>/' "$SEED" >"$TMP/dynamic_dot.mlir"
expect_error p6_dynamic_dim_printed $COMPILE "dynamic" "!-9223372036854775808" \
  -- compile "$TMP/dynamic_dot.mlir" -o "$TMP/p6b"


# P7: collectives inside called functions are listed, once per call, with
# the call they run under, not only the entry function's own.
cat >"$TMP/callee_collectives.mlir" <<'MLIR'
garray.mesh @mesh ["a" = 2, "b" = 2]
func.func private @h(%p: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %y = garray.dot_general %p, %w, batch = [] x [], contracting = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %e = garray.exp %y : tensor<8x8xf32>
  return %e : tensor<8x8xf32>
}
func.func private @g(%p: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = call @h(%p, %w) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
func.func @main(%x: tensor<8x8xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P(None, "a")>},
                %w: tensor<8x8xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P("a", None)>}) -> tensor<8x8xf32> {
  %r1 = call @h(%x, %w) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %r2 = call @g(%x, %w) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %s = garray.add %r1, %r2 : tensor<8x8xf32>
  return %s : tensor<8x8xf32>
}
MLIR
if expect_ok p7_explain_callees -- explain "$TMP/callee_collectives.mlir" --mesh a=2,b=2 --split-idle-axes=false; then
  out="$TMP/p7_explain_callees.out"
  check p7_explain_callees "lists the callee's all_reduce once per call" \
    contains "$out" "collectives inserted by partitioning (2)"
  check p7_explain_callees "names the direct call" \
    contains "$out" "in @h (called at $TMP/callee_collectives.mlir:13:9)"
  check p7_explain_callees "names the nested call" \
    contains "$out" "in @h (called at $TMP/callee_collectives.mlir:8:8) in @g (called at $TMP/callee_collectives.mlir:14:9)"
fi
if expect_ok p7_report_callees -- report "$TMP/callee_collectives.mlir" --mesh a=2,b=2 --split-idle-axes=false; then
  out="$TMP/p7_report_callees.out"
  check p7_report_callees "report counts both" contains "$out" 'collectives on mesh ["a"=2, "b"=2]: 2'
  check p7_report_callees "report says where" test "$(count_of "$out" "in @h (called at")" = 2
fi

finish
