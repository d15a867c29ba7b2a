#!/usr/bin/env bash
# Training steps, shardc against JAX on the same CPUs, in one run.
#
#   bash bench/train/run.sh [MODELS] [MESHES] [STEPS]
#     MODELS  "mlp transformer" (default)     MESHES  "1x1 2x1 2x2 4" (default)
#     STEPS   timed steps per run, after 2 warm-up steps (default 10)
#   A mesh is AxB (data x model) or N (data only), at most 8 devices.
#   Environment:
#     BENCH_MLP_SIZES, BENCH_TRANSFORMER_SIZES   other sizes, e.g.
#         BENCH_MLP_SIZES="batch=8192,hidden=2048" (bench/train/models.py);
#         BENCH_DEEP_SIZES, BENCH_EMBED_SIZES, BENCH_CNN_SIZES, BENCH_RNN_SIZES,
#         BENCH_STACK_SIZES likewise
#         for bench/train/more_models.py
#     BENCH_MODELS   another models file defining EXPORTS["<model>_<mesh>"]
#                    (default bench/train/models.py)
#
# JAX's own program is exported (tools/jax_export.py) and shardc compiles
# that file, so both sides run the same model by construction, from the
# same initial state and data. For each model and mesh, shardc and JAX run
# alternately, twice each; a side's step time is the median of its timed
# steps over both runs (shardc: `run --steps --time-steps`, a step being
# scatter + run + gather + replica check; JAX: the jitted, donated step
# until its state is ready). Prints ms/step for each, the ratio (JAX's time
# over shardc's: above 1, shardc is faster), both final losses and their
# relative difference, the host CPU, and its measured FMA peak before and
# after the runs and, per row (`cores`), all threads' FMA rate over one
# thread's right after it (bench/peak: far from the core count, the host
# was contended). JAX comes from tools/jax_env.sh's
# virtual environment; nothing else here needs Python.
set -euo pipefail
# A models file given relative to the caller's directory, before the cd.
models_file=$(realpath "${BENCH_MODELS:-$(dirname "$0")/models.py}")
export BENCH_MODELS=$models_file
cd "$(dirname "$0")/../.."
models=${1:-mlp transformer}
meshes=${2:-1x1 2x1 2x2 4}
steps=${3:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
py() { tools/jax_env.sh "$@"; }

bash .ci/install-deps >/dev/null
bazel build //compiler/tools:shardc //bench/peak:fma_peak >/dev/null 2>&1
cp bazel-bin/compiler/tools/shardc "$work/shardc"
cp bazel-bin/bench/peak/fma_peak "$work/fma_peak"
bazel shutdown >/dev/null 2>&1 || true

cpu=$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)
width=$(grep -q avx512f /proc/cpuinfo && echo "AVX-512" || echo "AVX2")
echo "host: $cpu ($width, $(nproc) cores); $(py -c 'import jax; print("jax", jax.__version__)' 2>/dev/null)"
overrides=$(env | grep -E '^BENCH_[A-Z]+_SIZES=' | sort | sed 's/^/; /' | tr -d '\n' || true)
echo "models: $models_file$overrides"
# The host's FMA peak before and after (bench/peak/FmaPeak.h): all threads
# at far from the core count times one thread's rate mean a contended host.
echo "before: $("$work/fma_peak")"
printf '%-12s %-5s %12s %12s %7s %14s %14s %9s %9s %7s\n' model mesh "shardc ms" "jax ms" ratio \
  "shardc loss" "jax loss" "rel diff" "compile s" "cores"

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

for model in $models; do
  for mesh in $meshes; do
    name=${model}_${mesh}
    if ! py tools/jax_export.py "$models_file" "$name" --out "$work" >"$work/export.log" 2>&1; then
      echo "bench/train: exporting $name failed:" >&2
      tail -5 "$work/export.log" >&2
      exit 1
    fi
    ins=()
    for f in "$work/$name/inputs/"*.npy; do
      ins+=(--in "$(basename "$f" .npy)=$f")
    done
    t0=$(date +%s.%N)
    "$work/shardc" compile "$work/$name.mlir" -o "$work/$name.out" --quiet
    compile_s=$(echo "$(date +%s.%N) - $t0" | bc)
    : >"$work/shardc.times"
    : >"$work/jax.times"
    for round in 1 2; do
      "$work/shardc" run "$work/$name.out" --steps $((steps + 2)) --time-steps "${ins[@]}" \
        >"$work/shardc.out"
      grep -E '^step [0-9]+: [0-9.]+ ms$' "$work/shardc.out" | awk -v w=2 '{sub(":", "", $2); if ($2 > w) print $3}' \
        >>"$work/shardc.times"
      shardc_loss=$(grep -E '^step [0-9]+: loss = ' "$work/shardc.out" | tail -1 | awk '{print $5}')
      if ! py bench/train/jax_steps.py "$name" "$steps" >"$work/jax.out" 2>"$work/jax.err"; then
        echo "bench/train: JAX's steps of $name failed:" >&2
        tail -5 "$work/jax.err" >&2
        exit 1
      fi
      tail -1 "$work/jax.out" >"$work/jax.json"
      py -c 'import json,sys; d=json.load(open(sys.argv[1])); print("\n".join(map(str, d["times_ms"])))' \
        "$work/jax.json" >>"$work/jax.times"
      jax_loss=$(py -c 'import json,sys; print(json.load(open(sys.argv[1]))["losses"][-1])' "$work/jax.json")
    done
    s_ms=$(median <"$work/shardc.times")
    j_ms=$(median <"$work/jax.times")
    ratio=$(echo "scale=3; $j_ms / $s_ms" | bc)
    rel=$(py -c 'import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print("%.1e" % (abs(a-b)/abs(b)))' \
      "$shardc_loss" "$jax_loss")
    # The host's state right after the row's runs: all threads' FMA rate
    # over one thread's (bench/peak), about the core count when the vCPUs
    # were whole.
    cores=$("$work/fma_peak" | sed -n 's/.*(\([0-9.]*\)x)$/\1/p')
    printf '%-12s %-5s %12.1f %12.1f %7s %14.7g %14.7g %9s %9.1f %7s\n' "$model" "$mesh" "$s_ms" "$j_ms" \
      "$ratio" "$shardc_loss" "$jax_loss" "$rel" "$compile_s" "${cores:-?}"
  done
done
echo "after: $("$work/fma_peak")"
