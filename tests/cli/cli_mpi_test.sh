#!/usr/bin/env bash
# `mpirun -np N shardc run OUT/ --backend mpi`: one rank per process, the
# generated code's collectives over Open MPI.
#   - the training sample (value_and_grad, SGD) for 3 steps on 1, 2, 3, 4 and 8
#     processes: the same losses and final w as the threads backend;
#   - the heat stencil (halo exchanges = collective permutes) on 4 processes:
#     u_next identical to the threads run (no reduction is involved, so the
#     bytes must match exactly);
#   - a job with the wrong number of processes fails, saying how many it needs;
#   - --profile prints every rank's table once (from rank 0);
#   - the training sample's outputs are the same bytes as the threads
#     backend's (both reduce in group order), as are a JAX shard_map
#     program's, whose body writes its own collectives, and the sample's
#     on a 2-D mesh with an idle axis (its inputs split over it too).
# Fails when mpirun is not installed (.ci/install-deps installs Open MPI):
# a skipped MPI test would count as passed.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
if ! command -v mpirun >/dev/null 2>&1; then
  echo "FAILED: mpirun not found; install Open MPI (bash .ci/install-deps does)"
  exit 1
fi
export OMPI_MCA_btl=self,vader
export OMPI_MCA_plm_rsh_agent=false
TRAIN="$ROOT/samples/linear_regression.mlir"

# not_contains_twice FILE STRING: STRING appears at most once (one speaker).
not_contains_twice() { [[ $(count_of "$1" "$2") -le 1 ]]; }
# same_output TOOL ARGS... A B: TOOL ARGS A and TOOL ARGS B print the same.
same_output() {
  local b=${*: -1} a=${*: -2:1}
  local cmd=("${@:1:$#-2}")
  [[ "$("${cmd[@]}" "$a")" == "$("${cmd[@]}" "$b")" ]]
}

# mpirun_shardc NAME N ARGS...: like run_shardc, under mpirun -np N.
mpirun_shardc() {
  local name=$1 n=$2
  shift 2
  timeout -k 10 "$SHARDC_TIMEOUT_S" mpirun --allow-run-as-root --oversubscribe -np "$n" \
    ${SHARDRT_TEST_FAULT:+-x SHARDRT_TEST_FAULT} "$SHARDC" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
  LAST_STATUS=$?
}

for n in 1 2 3 4 8; do # 3: uneven shards
  name="train_mpi$n"
  CASES=$((CASES + 1))
  expect_ok "compile$n" -- compile "$TRAIN" --mesh "data=$n" -o "$TMP/train$n" --quiet || continue
  mpirun_shardc "$name" "$n" run "$TMP/train$n" --backend mpi "${SEED_IN[@]}" --steps 3 \
    --out "$TMP/$name"
  if [[ $LAST_STATUS -ne 0 ]]; then
    fail "$name" "exit status $LAST_STATUS"
    show "$name" run "$TMP/train$n" --backend mpi
    continue
  fi
  check "$name" "ran on $n ranks over mpi" contains "$TMP/$name.out" "on $n ranks (mesh [\"data\"=$n], mpi)"
  check "$name" "step 1 loss 4.875" contains "$TMP/$name.out" "step 1: loss = 4.875"
  check "$name" "step 3 loss" contains "$TMP/$name.out" "step 3: loss = 1.80017"
  check "$name" "loss.npy" "$NPY" check "$TMP/$name/loss.npy" f32 scalar 1.800171 --tol 1e-5
  check "$name" "w.npy" "$NPY" check "$TMP/$name/w.npy" f32 2 1.046813 -0.1108125 --tol 1e-5
  check "$name" "one process prints" not_contains_twice "$TMP/$name.out" "final outputs:"
done

# The MPI all-reduce reduces in group order, as the threads backend does:
# the same training run gives the same bytes on both.
for n in 3 4; do
  if expect_ok "train_threads$n" -- run "$TMP/train$n" "${SEED_IN[@]}" --steps 3 \
      --out "$TMP/train_threads$n" --quiet; then
    for f in w loss; do
      check "train_threads$n" "$f.npy identical to MPI's" \
        cmp -s "$TMP/train_threads$n/$f.npy" "$TMP/train_mpi$n/$f.npy"
    done
  fi
done

# --profile under MPI: rank 0 prints every rank's table, gathered over MPI.
CASES=$((CASES + 1))
if expect_ok compile_profiled -- compile "$TRAIN" --mesh data=3 -o "$TMP/train_prof" --profile --quiet; then
  mpirun_shardc profile_mpi 3 run "$TMP/train_prof" --backend mpi "${SEED_IN[@]}" --steps 2 \
    --profile --quiet
  if [[ $LAST_STATUS -ne 0 ]]; then
    fail profile_mpi "exit status $LAST_STATUS"
    show profile_mpi run "$TMP/train_prof" --backend mpi --profile
  else
    for r in 0 1 2; do
      check profile_mpi "rank $r's table, once" test \
        "$(count_of "$TMP/profile_mpi.out" "rank $r (2 steps, ")" = 1
    done
    check profile_mpi "all_reduce_done sites" \
      grep -qE '% +2  all_reduce_done [^ ]*linear_regression\.mlir:' "$TMP/profile_mpi.out"
    check profile_mpi "the wait for all-reduces, measured on every rank" test "$(grep -cE \
      'waiting for reductions to finish: [0-9.]+ ms\)$' "$TMP/profile_mpi.out")" = 3
  fi
fi

# The stencil: threads and MPI give the same bytes.
"$NPY" write "$TMP/u.npy" f32 16,8 $(seq 1 128) || exit 1
if expect_ok heat_threads -- run "$ROOT/samples/heat_stencil.mlir" --mesh data=4 \
  --in "u=$TMP/u.npy" --out "$TMP/heat_t" --quiet &&
  expect_ok heat_compile -- compile "$ROOT/samples/heat_stencil.mlir" --mesh data=4 \
    -o "$TMP/heatc" --quiet; then
  CASES=$((CASES + 1))
  mpirun_shardc heat_mpi 4 run "$TMP/heatc" --backend mpi --in "u=$TMP/u.npy" --out "$TMP/heat_m"
  if [[ $LAST_STATUS -ne 0 ]]; then
    fail heat_mpi "exit status $LAST_STATUS"
    show heat_mpi run --backend mpi
  else
    check heat_mpi "u_next equal to threads" same_output "$NPY" print "$TMP/heat_t/u_next.npy" \
      "$TMP/heat_m/u_next.npy"
  fi
fi

# A JAX shard_map program (psum, all_gather, psum_scatter, all_to_all,
# ppermute written in its body): MPI's outputs are the threads backend's
# bytes (ImportJaxTest checks those against JAX's).
SM="$ROOT/tests/import/jax/shardmap"
SM_IN=()
for f in "$SM"/inputs/*.npy; do SM_IN+=(--in "$(basename "$f" .npy)=$f"); done
if expect_ok shardmap_threads -- run "$SM.mlir" "${SM_IN[@]}" --out "$TMP/sm_t" --quiet &&
  expect_ok shardmap_compile -- compile "$SM.mlir" -o "$TMP/smc" --quiet; then
  CASES=$((CASES + 1))
  mpirun_shardc shardmap_mpi 4 run "$TMP/smc" --backend mpi "${SM_IN[@]}" --out "$TMP/sm_m"
  if [[ $LAST_STATUS -ne 0 ]]; then
    fail shardmap_mpi "exit status $LAST_STATUS"
    show shardmap_mpi run --backend mpi
  else
    for f in "$TMP"/sm_t/*.npy; do
      check shardmap_mpi "$(basename "$f") identical to threads" cmp -s "$f" \
        "$TMP/sm_m/$(basename "$f")"
    done
  fi
fi

# The training sample on a 2-D mesh whose "model" axis nothing is placed
# on: X and y, split over "data", are split over "model" too (the report
# says so), and 4 processes give the 1-D run's losses and w, and the
# threads backend's bytes.
sed 's/garray.mesh @mesh \["data" = 4\]/garray.mesh @mesh ["data" = 2, "model" = 2]/' \
  "$TRAIN" >"$TMP/train_idle.mlir"
if expect_ok idle_compile -- compile "$TMP/train_idle.mlir" -o "$TMP/train_idle" --report &&
  expect_ok idle_threads -- run "$TMP/train_idle" "${SEED_IN[@]}" --steps 3 \
    --out "$TMP/idle_t" --quiet; then
  check idle_compile "X is sliced over the idle axis" contains "$TMP/idle_compile.out" \
    'needs P(("data", "model"), None)'
  check idle_compile "the slice moves no bytes" contains "$TMP/idle_compile.out" \
    'all_slice   tensor<8x2xf32> over ["model"] group 2         0 B/device'
  CASES=$((CASES + 1))
  mpirun_shardc idle_mpi 4 run "$TMP/train_idle" --backend mpi "${SEED_IN[@]}" --steps 3 \
    --out "$TMP/idle_m"
  if [[ $LAST_STATUS -ne 0 ]]; then
    fail idle_mpi "exit status $LAST_STATUS"
    show idle_mpi run --backend mpi
  else
    check idle_mpi "step 3 loss" contains "$TMP/idle_mpi.out" "step 3: loss = 1.80017"
    check idle_mpi "w.npy" "$NPY" check "$TMP/idle_m/w.npy" f32 2 1.046813 -0.1108125 --tol 1e-5
    for f in w loss; do
      check idle_mpi "$f.npy identical to threads" cmp -s "$TMP/idle_t/$f.npy" "$TMP/idle_m/$f.npy"
    done
  fi
fi

# A stalled peer (the test-only fault hook stops rank 1 at its first
# collective, as SIGSTOP would): every process ends with exit 5 within the
# collective timeout, naming the collective; no output is written.
CASES=$((CASES + 1))
start=$(date +%s)
SHARDRT_TEST_FAULT=rank=1,collective=0,kind=stall mpirun_shardc stalled_peer 4 \
  run "$TMP/train4" --backend mpi "${SEED_IN[@]}" --timeout 3 --out "$TMP/stalled_out"
took=$(($(date +%s) - start))
if [[ $LAST_STATUS -ne 5 ]]; then
  fail stalled_peer "expected exit status 5, got $LAST_STATUS"
  show stalled_peer run --backend mpi --timeout 3
elif ! grep -q "timed out after 3 s" "$TMP/stalled_peer.err"; then
  fail stalled_peer "no message naming the timed-out collective"
  show stalled_peer run --backend mpi --timeout 3
elif [[ $took -gt 20 ]]; then
  fail stalled_peer "took ${took}s with a 3 s timeout"
elif compgen -G "$TMP/stalled_out/*.npy" >/dev/null; then
  fail stalled_peer "a failed run wrote outputs"
fi

# Wrong process count: a clear error, non-zero, no hang.
CASES=$((CASES + 1))
mpirun_shardc wrong_np 2 run "$TMP/train4" --backend mpi "${SEED_IN[@]}"
if [[ $LAST_STATUS -eq 0 || $LAST_STATUS -ge 124 ]]; then
  fail wrong_np "expected a failure exit status, got $LAST_STATUS"
elif ! grep -q "has 4 devices but the MPI job has 2 processes; start it with mpirun -np 4" \
  "$TMP/wrong_np.err"; then
  fail wrong_np "no message naming the process count"
  show wrong_np run --backend mpi
fi

finish
