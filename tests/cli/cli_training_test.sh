#!/usr/bin/env bash
# `shardc run --steps N` on the training samples: outputs named like inputs
# feed back between steps, the loss is printed every step, the final outputs
# are written; bad --steps values and non-differentiable losses are clear
# errors. The linear-regression trajectory (NumPy, float64, lr 0.1 from w = 0):
# loss 4.875, 2.678438, 1.800171, 1.279024, 0.9206386; final w
# [1.329322, -0.339562].
set -u
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

LR="$ROOT/samples/linear_regression.mlir"

for n in 1 2 4 8; do
  if expect_ok "steps5_data$n" -- run "$LR" --mesh "data=$n" "${SEED_IN[@]}" --steps 5 \
      --out "$TMP/lr$n"; then
    out="$TMP/steps5_data$n.out"
    check "steps5_data$n" "step 1 is the seed's loss" contains "$out" "step 1: loss = 4.875"
    check "steps5_data$n" "step 2 loss" contains "$out" "step 2: loss = 2.67843"
    check "steps5_data$n" "step 5 loss" contains "$out" "step 5: loss = 0.92063"
    check "steps5_data$n" "says how many steps" contains "$out" "ran 5 steps on $n ranks"
    check "steps5_data$n" "final w.npy" \
      "$NPY" check "$TMP/lr$n/w.npy" f32 2 1.329322 -0.339562 --tol 1e-5
    check "steps5_data$n" "final grad.npy (step 5's gradient)" \
      "$NPY" check "$TMP/lr$n/grad.npy" f32 2 -1.251314 1.097714 --tol 1e-5
  fi
done

# The state's replicas checked after every step: the same trajectory.
if expect_ok steps_check_every -- run "$LR" --mesh data=4 "${SEED_IN[@]}" --steps 5 \
    --check-replicas=every --out "$TMP/lr_every"; then
  check steps_check_every "step 5 loss" contains "$TMP/steps_check_every.out" \
    "step 5: loss = 0.92063"
  check steps_check_every "final w.npy" \
    "$NPY" check "$TMP/lr_every/w.npy" f32 2 1.329322 -0.339562 --tol 1e-5
fi
expect_error check_replicas_bad 2 "--check-replicas sometimes" "last" "every" -- \
  run "$LR" "${SEED_IN[@]}" --steps 2 --check-replicas=sometimes

# One step is the plain run (same numbers as the seed).
if expect_ok steps1 -- run "$LR" --mesh data=4 "${SEED_IN[@]}" --steps 1; then
  check steps1 "prints loss = 4.875" contains "$TMP/steps1.out" "loss = 4.875"
  check steps1 "prints w = [0.525, 0.075]" contains "$TMP/steps1.out" "w = [0.525, 0.075]"
fi

# A model none of whose outputs is named like an argument repeats its first
# step: --steps says so on stderr; a model whose state feeds back does not.
"$NPY" write "$TMP/u_16x8.npy" f32 16,8 1 || exit 1
if expect_ok steps_no_feedback -- run "$ROOT/samples/heat_stencil.mlir" \
    --in "u=$TMP/u_16x8.npy" --steps 3; then
  check steps_no_feedback "warns that nothing feeds back" \
    contains "$TMP/steps_no_feedback.err" "nothing feeds back: each of the 3 steps runs on the same inputs"
fi
check steps5_data4 "no feedback warning when the state feeds back" \
  not_contains "$TMP/steps5_data4.err" "nothing feeds back"

# A compiled directory runs steps too.
if expect_ok compile_lr -- compile "$LR" --mesh data=2 -o "$TMP/lr_out" --quiet; then
  if expect_ok steps_compiled_dir -- run "$TMP/lr_out" "${SEED_IN[@]}" --steps 3; then
    check steps_compiled_dir "step 3 loss" contains "$TMP/steps_compiled_dir.out" \
      "step 3: loss = 1.80017"
  fi
fi

# The gradient of the replicated w over the sharded batch: one all-reduce for
# it and one for the loss, nothing else.
if expect_ok lr_report -- report "$LR" --mesh data=4; then
  check lr_report "2 collectives" contains "$TMP/lr_report.out" "collectives on mesh [\"data\"=4]: 2"
fi

# The MLP's step on 2x2: the weight gradients' and the loss's reductions over
# "data" are independent and travel as one collective, so the local program
# issues 3 all-reduces, 7 uncombined.
MLP="$ROOT/samples/mlp_train.mlir"
for combine in default 0; do
  args=(); want=3
  if [[ $combine == 0 ]]; then args=(--combine-bytes=0); want=7; fi
  if expect_ok "mlp_local_$combine" -- compile "$MLP" --mesh data=2,model=2 --emit=local "${args[@]}"; then
    got=$(count_of "$TMP/mlp_local_$combine.out" "comm.all_reduce")
    check "mlp_local_$combine" "$want comm.all_reduce (got $got)" test "$got" = "$want"
  fi
done

# max and argmax of one value over a sharded dim reduce the maximum once:
# two all-reduces (max, then the first index of it), not three; ties and a
# maximum in either shard give the first global index.
MAXARG="$ROOT/tests/cli/max_argmax.mlir"
if expect_ok max_argmax_local -- compile "$MAXARG" --emit=local --combine-bytes=0; then
  got=$(count_of "$TMP/max_argmax_local.out" "comm.all_reduce")
  check max_argmax_local "2 comm.all_reduce (got $got)" test "$got" = 2
fi
"$NPY" write "$TMP/maxarg_x.npy" f32 3,6 1 9 2 3 4 5  7 1 2 7 0 7  -3 -2 -1 -4 -5 -6 || exit 1
for n in 1 2 3; do
  if expect_ok "max_argmax_run$n" -- run "$MAXARG" --mesh "model=$n" --in "x=$TMP/maxarg_x.npy" \
      --out "$TMP/maxarg$n" --quiet; then
    check "max_argmax_run$n" "max" "$NPY" check "$TMP/maxarg$n/max.npy" f32 3 9 7 -1
    check "max_argmax_run$n" "where" "$NPY" check "$TMP/maxarg$n/where.npy" i64 3 1 0 2
  fi
done

# A cross-entropy over a vocabulary sharded on "model", its shift under
# stop_gradient: the backward pass reuses the forward's reduced maximum
# and sum, so the local program all-reduces 4 values (the forward's max,
# sum and picked log-probabilities, and the backward's sum of the
# log-probabilities' cotangent), where the same model shifting by a
# differentiated maximum all-reduces 6. Loss and gradient agree with that
# model's, and across meshes (3 shards of 16 classes: uneven).
VCE="$ROOT/tests/cli/vocab_cross_entropy.mlir"
sed -e 's/  %shift = garray.stop_gradient %mx : tensor<8x1xf32>/  %shift = garray.neg %mx : tensor<8x1xf32>\n  %back = garray.neg %shift : tensor<8x1xf32>/' \
  -e 's/broadcast_in_dim %shift,/broadcast_in_dim %back,/' "$VCE" >"$TMP/vce_unstopped.mlir"
for variant in vce:"$VCE":4 vce_unstopped:"$TMP/vce_unstopped.mlir":6; do
  IFS=: read -r name model want <<<"$variant"
  if expect_ok "${name}_local" -- compile "$model" --emit=local --combine-bytes=0; then
    got=$(count_of "$TMP/${name}_local.out" "comm.all_reduce")
    check "${name}_local" "$want comm.all_reduce (got $got)" test "$got" = "$want"
  fi
done
"$NPY" write "$TMP/vce_w.npy" f32 4,16 $(seq -31 32 | awk '{printf "%g ", $1 / 16}') || exit 1
"$NPY" write "$TMP/vce_x.npy" f32 8,4 $(seq 1 32 | awk '{printf "%g ", (($1 * 7) % 11 - 5) / 4}') || exit 1
"$NPY" write "$TMP/vce_onehot.npy" f32 8,16 $(for r in 0 1 2 3 4 5 6 7; do
  for c in $(seq 0 15); do [[ $c -eq $(((r * 5 + 3) % 16)) ]] && printf '1 ' || printf '0 '; done
done) || exit 1
VCE_IN=(--in "w=$TMP/vce_w.npy" --in "x=$TMP/vce_x.npy" --in "onehot=$TMP/vce_onehot.npy")
if expect_ok vce_ref -- run "$TMP/vce_unstopped.mlir" --mesh model=1 "${VCE_IN[@]}" \
    --out "$TMP/vce_ref" --quiet; then
  ref_loss=$("$NPY" print "$TMP/vce_ref/loss.npy" | cut -d: -f2)
  ref_grad=$("$NPY" print "$TMP/vce_ref/grad.npy" | cut -d: -f2)
  for n in 1 2 3 4; do
    if expect_ok "vce_run$n" -- run "$VCE" --mesh "model=$n" "${VCE_IN[@]}" --out "$TMP/vce$n" \
        --quiet; then
      # shellcheck disable=SC2086
      check "vce_run$n" "loss" "$NPY" check "$TMP/vce$n/loss.npy" f32 scalar $ref_loss
      # shellcheck disable=SC2086
      check "vce_run$n" "gradient" "$NPY" check "$TMP/vce$n/grad.npy" f32 4,16 $ref_grad
    fi
  done
fi

expect_error steps_zero 2 "--steps 0" "positive" -- run "$LR" "${SEED_IN[@]}" --steps 0
expect_error steps_word 2 "--steps x" -- run "$LR" "${SEED_IN[@]}" --steps x
expect_error steps_missing 2 "--steps needs a value" -- run "$LR" "${SEED_IN[@]}" --steps

# An output named like an argument but of another shape cannot feed back.
cat >"$TMP/bad_feedback.mlir" <<'MLIR'
func.func @main(%w: tensor<2xf32> {garray.name = "w"}) -> (tensor<4xf32> {garray.name = "w"}) {
  %c = garray.concatenate %w, %w, dim = 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}
MLIR
expect_error bad_feedback 5 "output 'w'" "cannot feed back into argument 'w'" -- \
  run "$TMP/bad_feedback.mlir" --in "w=$SEED_DATA/w.npy" --steps 2

# A loss through an op without an adjoint names the op and its location.
cat >"$TMP/no_adjoint.mlir" <<'MLIR'
func.func private @f(%w: tensor<2xf32>) -> tensor<f32> {
  %p = garray.reduce <prod> %w, dims = [0] : (tensor<2xf32>) -> tensor<f32>
  return %p : tensor<f32>
}
func.func @main(%w: tensor<2xf32> {garray.name = "w"}) -> (tensor<f32> {garray.name = "loss"}, tensor<2xf32> {garray.name = "g"}) {
  %l, %g = garray.value_and_grad @f(%w) wrt [0] : (tensor<2xf32>) -> (tensor<f32>, tensor<2xf32>)
  return %l, %g : tensor<f32>, tensor<2xf32>
}
MLIR
expect_error no_adjoint 3 "no_adjoint.mlir:2:" "reduce <prod>" -- compile "$TMP/no_adjoint.mlir"

cat >"$TMP/bad_wrt.mlir" <<'MLIR'
func.func private @f(%w: tensor<2xf32>) -> tensor<f32> {
  %p = garray.reduce <sum> %w, dims = [0] : (tensor<2xf32>) -> tensor<f32>
  return %p : tensor<f32>
}
func.func @main(%w: tensor<2xf32> {garray.name = "w"}) -> (tensor<f32> {garray.name = "loss"}, tensor<2xf32> {garray.name = "g"}) {
  %l, %g = garray.value_and_grad @f(%w) wrt [1] : (tensor<2xf32>) -> (tensor<f32>, tensor<2xf32>)
  return %l, %g : tensor<f32>, tensor<2xf32>
}
MLIR
expect_error bad_wrt 3 "value_and_grad_c2" "out of range" -- compile "$TMP/bad_wrt.mlir"

finish
