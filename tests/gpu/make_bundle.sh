#!/usr/bin/env bash
# Builds the GPU device bundle (a solid tar.xz), run by Bazel's
# //tests/gpu:bundle genrule:
#   make_bundle.sh OUT.tar.xz EXE_DIR GPU_EXE_DIR NPY_TOOL NPYCMP RUN_SH INPUTS_SH CASES_BZL \
#                  SHARDC RANDOM_PROGRAMS BENCH_DIR MODELS_DIR
# EXE_DIR holds the CPU executables (<case>_cpu), GPU_EXE_DIR the GPU ones
# (<case>_sm_90, <case>_sm_90a). The CPU executables run here to make each
# case's expected outputs, which the GPU's must match within tolerances.
# bench/gpu's programs come along as bin/bench_*; run.sh runs them last.
# Random programs (every op and collective kind, f64 to bool) are added as
# cases too: written by RANDOM_PROGRAMS --write, compiled here with SHARDC
# --exe for the CPU and for sm_90; a program the GPU target refuses (an op
# without a recipe yet) is listed in refused.txt instead. The recipe models
# (MODELS_DIR/*.mlir: the GPU recipes at sizes the samples do not reach)
# are compiled the same way, on each mesh their "// MESHES:" line names,
# with their "// TOLERANCE:" line's rtol and atol, for the GPU with their
# "// GPU FLAGS:" line's flags too.
set -euo pipefail
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
out=$(abs "$1") cpu=$(abs "$2") gpu=$(abs "$3") npy=$(abs "$4") npycmp=$(abs "$5")
run_sh=$(abs "$6") inputs_sh=$(abs "$7") cases_bzl=$(abs "$8")
shardc=$(abs "$9") random_programs=$(abs "${10}") bench=$(abs "${11}") models=$(abs "${12}")
samples=$PWD/samples # the genrule runs in the execution root
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/shardc-gpu-bundle
mkdir -p "$root/bin" "$root/expected" "$root/inputs/samples"
source "$inputs_sh"
make_inputs "$npy" "$root/inputs/gen"
# -L: Bazel's inputs are symbolic links into the build machine's tree, which
# would dangle on the GPU machine; the bundle must hold the files.
for d in linear_regression masked_regression mlp mlp_train attention; do
  cp -rL "$samples/$d" "$root/inputs/samples/"
done
cp "$npycmp" "$root/bin/npycmp"
for b in gemm_f32 gemm_tf32 gemm_bf16 chain; do cp "$bench/$b" "$root/bin/bench_$b"; done
cp "$run_sh" "$root/run.sh"
# profile.sh lies beside run.sh (both are the genrule's sources).
cp "$(dirname "$run_sh")/profile.sh" "$root/profile.sh"
cp "$inputs_sh" "$root/inputs.sh"
chmod +x "$root/run.sh" "$root/profile.sh"
printf 'case\texecutable\trtol\tatol\targs\n' >"$root/cases.tsv"
while read -r name model mesh; do
  args=$(cd "$root" && case_args "$name" inputs/samples inputs/gen)
  (cd "$root" && "$cpu/${name}_cpu" $args --out "expected/$name" --quiet)
  # Training runs compound rounding over steps.
  rtol=2e-4 atol=2e-5
  [[ $args == *--steps* ]] && rtol=1e-3 atol=1e-4
  for arch in sm_90 sm_90a; do
    exe=${name}_$arch
    [[ -x "$gpu/$exe" ]] || continue
    cp "$gpu/$exe" "$root/bin/$exe"
    printf '%s/%s\t%s\t%s\t%s\t%s\n' "$name" "$arch" "$exe" "$rtol" "$atol" "$args" \
      >>"$root/cases.tsv"
  done
done < <(sed -n 's/^ *("\([a-z0-9_]*\)", "\([a-z_]*\)", "\([a-z0-9=,]*\)"),$/\1 \2 \3/p' "$cases_bzl")
# Random programs: 2 meshes each (1 to 8 ranks on the one GPU).
rp=$stage/rp
mkdir -p "$rp" "$root/inputs/random"
"$random_programs" --write="$rp" --seed=23 --programs=20 --meshes=2 >/dev/null
: >"$root/refused.txt"
while read -r name model mesh atol args; do
  cp "$rp/${model%.mlir}".*.npy "$root/inputs/random/" 2>/dev/null || true
  if ! "$shardc" compile "$rp/$model" --mesh "$mesh" --target ptx --gpu sm_90 --exe \
      -o "$stage/gpu_$name" --quiet 2>"$stage/gpu_$name.err"; then
    if grep -q "kernel recipe" "$stage/gpu_$name.err"; then
      echo "$name ($mesh): $(head -1 "$stage/gpu_$name.err")" >>"$root/refused.txt"
      continue
    fi
    cat "$stage/gpu_$name.err" >&2
    exit 1
  fi
  "$shardc" compile "$rp/$model" --mesh "$mesh" --cpu x86-64-v3 --exe -o "$stage/cpu_$name" --quiet
  local_args=$(echo "$args" | sed 's|=\(p[0-9]*\.\)|=inputs/random/\1|g')
  (cd "$root" && "$stage/cpu_$name/main" $local_args --out "expected/$name" --quiet)
  cp "$stage/gpu_$name/main" "$root/bin/${name}_sm_90"
  printf '%s/sm_90\t%s_sm_90\t%s\t%s\t%s\n' "$name" "$name" 1e-5 "$atol" "$local_args" \
    >>"$root/cases.tsv"
done <"$rp/cases.txt"
# Recipe models: one scalar input s; both archs; expected from the CPU.
mkdir -p "$root/inputs/recipe"
"$npy" write "$root/inputs/recipe/s.npy" f32 scalar 0.37 >/dev/null
for model in "$models"/*.mlir; do
  base=$(basename "$model" .mlir)
  read -r rtol atol < <(sed -n 's|^// TOLERANCE: ||p' "$model")
  read -r -a gpu_flags < <(sed -n 's|^// GPU FLAGS: ||p' "$model") || gpu_flags=()
  for mesh in $(sed -n 's|^// MESHES: ||p' "$model"); do
    name=recipe_${base}_${mesh//[=,]/_}
    # Four steps: on one GPU the standalone main replays steps 2-4 as CUDA
    # graphs (nothing feeds back, so every step gives the same outputs).
    args="--in s=inputs/recipe/s.npy --steps 4"
    "$shardc" compile "$model" --mesh "$mesh" --cpu x86-64-v3 --exe -o "$stage/cpu_$name" --quiet
    (cd "$root" && "$stage/cpu_$name/main" $args --out "expected/$name" --quiet)
    for arch in sm_90 sm_90a; do
      "$shardc" compile "$model" --mesh "$mesh" --target ptx --gpu "$arch" --exe \
        "${gpu_flags[@]}" -o "$stage/gpu_${name}_$arch" --quiet
      cp "$stage/gpu_${name}_$arch/main" "$root/bin/${name}_$arch"
      printf '%s/%s\t%s_%s\t%s\t%s\t%s\n' "$name" "$arch" "$name" "$arch" "$rtol" "$atol" \
        "$args" >>"$root/cases.tsv"
    done
  done
done
links=$(find "$root" -type l)
if [[ -n $links ]]; then
  echo "the GPU bundle would hold symbolic links, which dangle on another machine:" >&2
  echo "$links" >&2
  exit 1
fi
(cd "$stage" && tar -cf - shardc-gpu-bundle | xz -9e -T1 >"$out.tmp")
bytes=$(stat -c %s "$out.tmp")
limit=$((48 * 1024 * 1024))
if [[ $bytes -gt $limit ]]; then
  echo "the GPU bundle is $bytes bytes, over the $limit allowed" >&2
  exit 1
fi
mv "$out.tmp" "$out"
