#!/usr/bin/env bash
# `--target ptx` and its flags: every bad combination exits with the status
# docs/gpu.md gives it (2 command line, 3 arch or toolkit) and names what to
# change; the toolkit comes from CUDA_PATH, or /usr/local/cuda, and a wrong
# CUDA_PATH is never skipped. Fake toolkits in $TMP make the cases the same
# on machines with and without CUDA. The phases up to the local program are
# target-independent: --target ptx --emit=local prints what --target cpu
# prints. The GPU target makes kernels (--emit=gpu) and PTX (--emit=ptx,
# assembled by the real toolkit's ptxas; skipped without one) for every
# sample; ops without a recipe (reverse), and objects, are not built yet:
# exit 3 with a message that says so.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

USAGE=2 COMPILE=3

# A toolkit whose ptxas answers --version as CUDA 13.0's does, and one whose
# ptxas is not executable.
mkdir -p "$TMP/fakecuda/bin" "$TMP/brokencuda/bin" "$TMP/fakecuda/nvvm/libdevice" \
  "$TMP/nolibdevice/bin"
touch "$TMP/fakecuda/nvvm/libdevice/libdevice.10.bc"
cat >"$TMP/fakecuda/bin/ptxas" <<'PTXAS'
#!/bin/sh
echo "ptxas: NVIDIA (R) Ptx optimizing assembler"
echo "Cuda compilation tools, release 13.0, V13.0.48"
PTXAS
chmod +x "$TMP/fakecuda/bin/ptxas"
touch "$TMP/brokencuda/bin/ptxas"

# Flags that belong to the other target, and unknown values: exit 2.
expect_error gpu_on_cpu $USAGE "--gpu sm_90" "--target ptx only" -- compile "$SEED" --gpu sm_90
expect_error precision_on_cpu $USAGE "--matmul-precision tf32" "--target ptx only" -- \
  compile "$SEED" --matmul-precision tf32
expect_error cpu_on_ptx $USAGE "--cpu x86-64-v2" "--target cpu only" -- \
  compile "$SEED" --target ptx --cpu x86-64-v2
expect_error precision_bogus $USAGE "--matmul-precision fp8" "exact" "tf32" -- \
  compile "$SEED" --target ptx --matmul-precision fp8
expect_ok seed_compiled -- compile "$SEED" -o "$TMP/seed_out" --quiet
expect_error run_compiled_on_ptx $USAGE "--target applies when compiling" "seed_out" -- \
  run "$TMP/seed_out" --target ptx "${SEED_IN[@]}"

# The arch and the toolkit: exit 3, naming what was found and what to set.
export CUDA_PATH="$TMP/fakecuda"
expect_error arch_unknown $COMPILE "--gpu sm_80" "sm_90" "sm_90a" -- \
  compile "$SEED" --target ptx --gpu sm_80
export CUDA_PATH="$TMP/nocuda"
expect_error toolkit_missing $COMPILE "CUDA_PATH=$TMP/nocuda" "bin/ptxas" "unset it" -- \
  compile "$SEED" --target ptx
cp "$TMP/fakecuda/bin/ptxas" "$TMP/nolibdevice/bin/ptxas"
export CUDA_PATH="$TMP/nolibdevice"
expect_error toolkit_without_libdevice $COMPILE "$TMP/nolibdevice" "libdevice.10.bc" -- \
  compile "$SEED" --target ptx --emit=ptx
export CUDA_PATH="$TMP/brokencuda"
expect_error toolkit_not_executable $COMPILE "CUDA_PATH=$TMP/brokencuda" "not an executable" -- \
  compile "$SEED" --target ptx

# A toolkit is found; objects are what is missing, and the message names
# the toolkit's release, the arch, and what works instead.
export CUDA_PATH="$TMP/fakecuda"
expect_error codegen_not_built $COMPILE "does not build objects yet" "CUDA 13.0" "$TMP/fakecuda" \
  "sm_90a" "--emit=ptx" "--emit=local" "--target cpu" -- \
  compile "$SEED" --target ptx --gpu sm_90a -o "$TMP/ptx_out"
if [[ -e "$TMP/ptx_out" ]]; then
  fail codegen_not_built "a failed compile left $TMP/ptx_out behind"
fi
expect_error codegen_not_built_run $COMPILE "does not build objects yet" -- \
  run "$SEED" --target ptx "${SEED_IN[@]}"
expect_error emit_llvm_on_ptx $COMPILE "does not build objects yet" -- \
  compile "$SEED" --target ptx --emit=llvm
expect_error emit_ptx_on_cpu $USAGE "--emit=ptx" "--target ptx" -- compile "$SEED" --emit=ptx
expect_error emit_gpu_on_cpu $USAGE "--emit=gpu" "--target ptx" -- compile "$SEED" --emit=gpu

# Kernels: each elementwise op a gpu.launch_func of an outlined kernel; an
# op without a recipe is named with its location (the seed's dot_general).
EW="$ROOT/tests/cli/gpu_elementwise.mlir"
expect_ok emit_gpu -- compile "$EW" --target ptx --emit=gpu
for want in "gpu.launch_func +@main_kernel::@main_kernel blocks in" "gpu.module @main_kernel_0" \
  "gpu.func @main_kernel.* kernel" "math.tanh" "arith.mulf .*: bf16"; do
  if ! grep -Eq -- "$want" "$TMP/emit_gpu.out"; then
    fail emit_gpu "--emit=gpu shows no '$want'"
  fi
done
if grep -q "memref.copy\|memref.alloc" <(sed -n '/gpu.module/,$p' "$TMP/emit_gpu.out"); then
  fail emit_gpu "a kernel copies or allocates memory"
fi
cat >"$TMP/reverse.mlir" <<'MODEL'
garray.mesh @mesh ["data" = 2]
func.func @main(%x: tensor<8x4xf32> {garray.name = "x"}) -> (tensor<8x4xf32> {garray.name = "y"}) {
  %y = garray.reverse %x, dims = [1] : tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
MODEL
expect_error tf32_not_built $COMPILE "--matmul-precision tf32" "no TF32" "exact" -- \
  compile "$EW" --target ptx --matmul-precision tf32 --emit=gpu
expect_error no_recipe $COMPILE "no kernel recipe for 'linalg.generic'" "reverse.mlir:3:8" \
  "--target cpu" -- compile "$TMP/reverse.mlir" --target ptx --emit=gpu

# PTX through the real toolkit's ptxas, for both archs.
unset CUDA_PATH
if [[ -x /usr/local/cuda/bin/ptxas ]]; then
  for arch in sm_90 sm_90a; do
    expect_ok "emit_ptx_$arch" -- compile "$EW" --target ptx --gpu "$arch" --emit=ptx
    out="$TMP/emit_ptx_$arch.out"
    [[ $(grep -c "^\.target $arch\$" "$out") -eq 2 ]] ||
      fail "emit_ptx_$arch" "expected two PTX modules for .target $arch"
    [[ $(grep -c "^// ptxas info    : Used [0-9]* registers" "$out") -eq 2 ]] ||
      fail "emit_ptx_$arch" "expected ptxas's register report for both kernels"
    if grep -q "\.extern\|malloc" "$out"; then
      fail "emit_ptx_$arch" "a kernel calls out (.extern or malloc)"
    fi
  done
  # Every sample: its kernels (contractions and reductions with one thread
  # per output, full reductions on one thread) through ptxas for both archs.
  for sample in "$ROOT"/samples/*.mlir; do
    name=$(basename "$sample" .mlir)
    for arch in sm_90 sm_90a; do
      expect_ok "sample_${name}_$arch" -- compile "$sample" --target ptx --gpu "$arch" --emit=ptx
      out="$TMP/sample_${name}_$arch.out"
      if ! grep -q "^\.target $arch\$" "$out" || grep -q "\.extern\|malloc" "$out"; then
        fail "sample_${name}_$arch" "no .target $arch module, or a kernel that calls out"
      fi
    done
  done
else
  echo "some cases skipped: no CUDA toolkit at /usr/local/cuda (the --emit=ptx and sample cases did not run)"
fi

# A kernel over the arch's limits is a compile error at its op. The
# toolkit's ptxas reports what it reports; this one says every kernel needs
# 300 registers, or 60000 bytes of shared memory (the recipes' kernels use
# neither), so the check itself is what is tested.
LIBDEVICE=/usr/local/cuda/nvvm/libdevice/libdevice.10.bc
for case in registers smem; do
  mkdir -p "$TMP/big_$case/bin" "$TMP/big_$case/nvvm/libdevice"
  ln -sf "$LIBDEVICE" "$TMP/big_$case/nvvm/libdevice/libdevice.10.bc"
  if [[ $case == registers ]]; then report="Used 300 registers, used 0 barriers"; else
    report="Used 20 registers, used 1 barriers, 60000 bytes smem"; fi
  cat >"$TMP/big_$case/bin/ptxas" <<PTXAS
#!/bin/sh
if [ "\$1" = --version ]; then
  echo "Cuda compilation tools, release 13.0, V13.0.48"
else
  echo "ptxas info    : Compiling entry function 'main_kernel' for 'sm_90'"
  echo "ptxas info    : $report"
fi
PTXAS
  chmod +x "$TMP/big_$case/bin/ptxas"
done
if [[ -f $LIBDEVICE ]]; then
  export CUDA_PATH="$TMP/big_registers"
  expect_error over_registers $COMPILE "gpu_elementwise.mlir:" "300 registers x" \
    "over the 65536" "!LibDevice" -- compile "$EW" --target ptx --emit=ptx
  export CUDA_PATH="$TMP/big_smem"
  expect_error over_shared $COMPILE "gpu_elementwise.mlir:" "60000 bytes of static shared memory" \
    "49152" -- compile "$EW" --target ptx --emit=ptx
else
  echo "some cases skipped: no libdevice at $LIBDEVICE (the resource-check cases did not run)"
fi

# The local program does not depend on the target.
export CUDA_PATH="$TMP/fakecuda"
expect_ok local_on_ptx -- compile "$SEED" --target ptx --matmul-precision tf32 --emit=local
unset CUDA_PATH
expect_ok local_on_cpu -- compile "$SEED" --emit=local
if ! grep -q "func.func" "$TMP/local_on_ptx.out"; then
  fail local_on_ptx "--emit=local printed no function"
elif ! cmp -s "$TMP/local_on_ptx.out" "$TMP/local_on_cpu.out"; then
  fail local_on_ptx "the local program differs between --target ptx and --target cpu"
  diff "$TMP/local_on_cpu.out" "$TMP/local_on_ptx.out" | head -20
fi

finish
