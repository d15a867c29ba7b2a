#!/usr/bin/env bash
# shardc on shapes that do not divide over their mesh axes (uneven shards,
# ceil layout): `shardc run` writes the exact global outputs, and the
# manifest records the padded local shapes.
#   - the seed (8 rows) on 3, 5, 6 and 7 ranks: loss 4.875, grad [-5.25, -0.75];
#   - a length-5 vector on 4 ranks (shards 2,2,1,0) and 8 ranks
#     (1,1,1,1,1,0,0,0) through log (log(0) = -inf in the padding), a sum, a
#     max and a gathered output.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

# --- the seed on rank counts that do not divide 8 ----------------------------
for n in 3 5 6 7; do
  if expect_ok "seed_data$n" -- run "$SEED" --mesh "data=$n" "${SEED_IN[@]}" --out "$TMP/seed$n"; then
    check "seed_data$n" "ran on $n ranks" contains "$TMP/seed_data$n.out" "ran on $n ranks"
    check "seed_data$n" "loss.npy = 4.875" "$NPY" check "$TMP/seed$n/loss.npy" f32 scalar 4.875
    check "seed_data$n" "grad.npy = [-5.25, -0.75]" \
      "$NPY" check "$TMP/seed$n/grad.npy" f32 2 -5.25 -0.75
    check "seed_data$n" "w_next.npy = [0.525, 0.075]" \
      "$NPY" check "$TMP/seed$n/w_next.npy" f32 2 0.525 0.075
  fi
done

# Compiled for 3 ranks (rows 3,3,2): the manifest's local shape is the padded
# block, and the compiled directory runs.
if expect_ok compile_seed3 -- compile "$SEED" --mesh data=3 -o "$TMP/out3" --quiet; then
  check compile_seed3 "X's local shape is [3, 2]" \
    grep -qzE '"local_shape": \[[[:space:]]*3,[[:space:]]*2[[:space:]]*\]' "$TMP/out3/manifest.json"
  if expect_ok run_seed3_dir -- run "$TMP/out3" "${SEED_IN[@]}" --out "$TMP/seed3dir" --quiet; then
    check run_seed3_dir "loss.npy = 4.875" "$NPY" check "$TMP/seed3dir/loss.npy" f32 scalar 4.875
  fi
fi

# --- a length-5 vector with empty shards -------------------------------------
cat >"$TMP/five.mlir" <<'MODEL'
garray.mesh @mesh ["data" = 4]
func.func @main(%x: tensor<5xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> (tensor<5xf32> {garray.name = "log"}, tensor<f32> {garray.name = "sum"},
        tensor<f32> {garray.name = "max"}, tensor<f32> {garray.name = "mean"}) {
  %log = garray.log %x : tensor<5xf32>
  %sum = garray.reduce <sum> %log, dims = [0] : (tensor<5xf32>) -> tensor<f32>
  %max = garray.reduce <max> %log, dims = [0] : (tensor<5xf32>) -> tensor<f32>
  %mean = garray.mean %x, dims = [0] : (tensor<5xf32>) -> tensor<f32>
  return %log, %sum, %max, %mean : tensor<5xf32>, tensor<f32>, tensor<f32>, tensor<f32>
}
MODEL
"$NPY" write "$TMP/x5.npy" f32 5 1 2 4 8 16 || exit 1
# log(2^k) = k ln 2; sum = 10 ln 2; max = 4 ln 2; mean(x) = 31 / 5.
for n in 1 4 8; do
  if expect_ok "five_data$n" -- run "$TMP/five.mlir" --mesh "data=$n" --in "x=$TMP/x5.npy" \
    --out "$TMP/five$n" --quiet; then
    check "five_data$n" "log.npy" "$NPY" check "$TMP/five$n/log.npy" f32 5 \
      0 0.693147 1.386294 2.079442 2.772589
    check "five_data$n" "sum.npy = 10 ln 2" "$NPY" check "$TMP/five$n/sum.npy" f32 scalar 6.931472
    check "five_data$n" "max.npy = 4 ln 2" "$NPY" check "$TMP/five$n/max.npy" f32 scalar 2.772589
    check "five_data$n" "mean.npy = 6.2" "$NPY" check "$TMP/five$n/mean.npy" f32 scalar 6.2
  fi
done

finish
