#!/usr/bin/env bash
# `--target ptx` and its flags: every bad combination exits with the status
# docs/gpu.md gives it (2 command line, 3 arch or toolkit) and names what to
# change; the toolkit comes from CUDA_PATH, or /usr/local/cuda, and a wrong
# CUDA_PATH is never skipped. Fake toolkits in $TMP make the cases the same
# on machines with and without CUDA. The phases up to the local program are
# target-independent: --target ptx --emit=local prints what --target cpu
# prints. The GPU target makes kernels (--emit=gpu) and PTX (--emit=ptx,
# assembled by the real toolkit's ptxas; skipped without one) for every
# sample, and an artifact whose object only calls shardrt's CUDA part; run
# where there is no CUDA device, it exits 5 saying so. A reversed read
# becomes element reads in the body (tensor.extract), tiled like any op.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

USAGE=2 COMPILE=3
NM=/usr/lib/llvm-22/bin/llvm-nm

# A toolkit whose ptxas answers --version as CUDA 13.0's does, and one whose
# ptxas is not executable.
mkdir -p "$TMP/fakecuda/bin" "$TMP/brokencuda/bin" "$TMP/fakecuda/nvvm/libdevice" \
  "$TMP/nolibdevice/bin"
touch "$TMP/fakecuda/nvvm/libdevice/libdevice.10.bc"
cat >"$TMP/fakecuda/bin/ptxas" <<'PTXAS'
#!/bin/sh
prev=; for a; do [ "$prev" = -o ] && : >"$a"; prev=$a; done
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

# A failed compile leaves nothing behind (an unknown arch is found before
# anything is written).
export CUDA_PATH="$TMP/fakecuda"
expect_error arch_unknown_out $COMPILE "--gpu sm_100" -- \
  compile "$SEED" --target ptx --gpu sm_100 -o "$TMP/ptx_bad_out"
if [[ -e "$TMP/ptx_bad_out" ]]; then
  fail arch_unknown_out "a failed compile left $TMP/ptx_bad_out behind"
fi
expect_error emit_ptx_on_cpu $USAGE "--emit=ptx" "--target ptx" -- compile "$SEED" --emit=ptx
expect_error emit_gpu_on_cpu $USAGE "--emit=gpu" "--target ptx" -- compile "$SEED" --emit=gpu

# Kernels: each elementwise op a gpu.launch_func of an outlined kernel; an
# op without a recipe is named with its location (the seed's dot_general).
EW="$ROOT/tests/cli/gpu_elementwise.mlir"
expect_ok emit_gpu -- compile "$EW" --target ptx --emit=gpu
# Kernels are named <function>_<recipe>, modules made unique.
for want in "gpu.launch_func +@main_shardc_body_output::@main_shardc_body_output blocks in" \
  "gpu.module @main_shardc_body_output_0" "gpu.func @main_shardc_body_output.* kernel" "math.tanh" "arith.mulf .*: bf16"; do
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
expect_ok reverse_tiled -- compile "$TMP/reverse.mlir" --target ptx --emit=gpu
grep -q "tensor.extract\|memref.load" "$TMP/reverse_tiled.out" ||
  fail reverse_tiled "the reversed read is not an element read"

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
    # Runs of 4 as 16-byte loads and stores (gpu-vectorize-threads): f32
    # as v4.b32, the bf16 scale as v2.b32.
    grep -q "ld\.global\.v4\.b32" "$out" && grep -q "st\.global\.v4\.b32" "$out" &&
      grep -q "ld\.global\.v2\.b32" "$out" ||
      fail "emit_ptx_$arch" "no vector loads and stores (ld/st.global.v4.b32, v2.b32)"
  done
  # A GEMM big enough for the staged recipe (gpu-stage-contractions): A
  # and B through shared memory (16-byte vector reads of it), barriers
  # between staging and compute, and fused multiply-adds.
  cat >"$TMP/gemm.mlir" <<'MODEL'
func.func @main(%a: tensor<256x96xf32> {garray.name = "a"}, %b: tensor<96x192xf32> {garray.name = "b"}) -> (tensor<256x192xf32> {garray.name = "c"}) {
  %c = garray.dot_general %a, %b, batch = [] x [], contracting = [1] x [0] : (tensor<256x96xf32>, tensor<96x192xf32>) -> tensor<256x192xf32>
  return %c : tensor<256x192xf32>
}
MODEL
  expect_ok gemm_staged -- compile "$TMP/gemm.mlir" --target ptx --emit=ptx
  out="$TMP/gemm_staged.out"
  for want in "\.shared \.align 16 \.b8" "ld\.shared\.v4\.b32" "st\.shared\.b32" "bar\.sync" \
    "fma\.rn\.f32" "used 1 barriers, 17408 bytes smem" "\.entry main_shardc_body_gemm("; do
    grep -q "$want" "$out" || fail gemm_staged "the GEMM's PTX shows no '$want'"
  done
  # The accumulators stay in registers across the K chunks: no local
  # memory (a stack frame) in any kernel.
  if grep -q "[1-9][0-9]* bytes stack frame\|ld\.local\|st\.local" "$out"; then
    fail gemm_staged "a kernel keeps values in local memory (stack frame, ld/st.local)"
  fi
  # f16 and bf16 GEMMs take the tensor cores on both archs: mma.sync
  # m16n8k16 with f32 accumulators on ldmatrix fragments of shared tiles (B
  # transposed), no local memory.
  for dtype in f16 bf16; do
    sed "s/f32>/$dtype>/g" "$TMP/gemm.mlir" >"$TMP/gemm_$dtype.mlir"
    for arch in sm_90 sm_90a; do
      name="gemm_mma_${dtype}_$arch"
      expect_ok "$name" -- compile "$TMP/gemm_$dtype.mlir" --target ptx --gpu "$arch" --emit=ptx
      out="$TMP/$name.out"
      for want in "mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.$dtype\.$dtype\.f32" \
        "ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16" \
        "ldmatrix\.sync\.aligned\.m8n8\.x2\.trans\.shared\.b16" "bar\.sync" \
        "\.entry main_shardc_body_gemm_mma("; do
        grep -q "$want" "$out" || fail "$name" "the $dtype GEMM's PTX shows no '$want'"
      done
      if grep -q "[1-9][0-9]* bytes stack frame\|ld\.local\|st\.local" "$out"; then
        fail "$name" "a kernel keeps values in local memory (stack frame, ld/st.local)"
      fi
    done
  done
  # f32 GEMMs stay exact on the SIMT cores unless TF32 is asked for; then
  # they take the tensor cores too: mma.sync m16n8k8 on TF32 operands,
  # rounded to nearest (ties away) as they are staged, A's fragments by
  # ldmatrix (32-bit elements as pairs of 16-bit ones).
  for arch in sm_90 sm_90a; do
    name="gemm_tf32_$arch"
    expect_ok "$name" -- compile "$TMP/gemm.mlir" --target ptx --gpu "$arch" \
      --matmul-precision tf32 --emit=ptx
    out="$TMP/$name.out"
    for want in "mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.tf32\.tf32\.f32" \
      "ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16" \
      "and\.b32.*-8192" "\.entry main_shardc_body_gemm_mma("; do
      grep -q "$want" "$out" || fail "$name" "the TF32 GEMM's PTX shows no '$want'"
    done
    if grep -q "[1-9][0-9]* bytes stack frame\|ld\.local\|st\.local" "$out"; then
      fail "$name" "a kernel keeps values in local memory (stack frame, ld/st.local)"
    fi
  done
  if grep -q "mma\.sync" "$TMP/gemm_staged.out"; then
    fail gemm_staged "an f32 GEMM took the tensor cores without --matmul-precision tf32"
  fi
  # Long rows reduce in block trees whose last five steps are warp
  # shuffles (down by 16, ..., 1, then lane 0's total to every lane): f32
  # as it is, f16 extended to 32 bits, f64 as two 32-bit halves.
  cat >"$TMP/rows.mlir" <<'MODEL'
func.func @main(%a: tensor<6x2050xf32> {garray.name = "a"}, %b: tensor<20x615xf16> {garray.name = "b"}, %d: tensor<8x700xf64> {garray.name = "d"}) -> (tensor<6xf32> {garray.name = "s"}, tensor<20xf16> {garray.name = "m"}, tensor<8xf64> {garray.name = "e"}) {
  %s = garray.reduce <sum> %a, dims = [1] : (tensor<6x2050xf32>) -> tensor<6xf32>
  %m = garray.reduce <max> %b, dims = [1] : (tensor<20x615xf16>) -> tensor<20xf16>
  %e = garray.reduce <sum> %d, dims = [1] : (tensor<8x700xf64>) -> tensor<8xf64>
  return %s, %m, %e : tensor<6xf32>, tensor<20xf16>, tensor<8xf64>
}
MODEL
  expect_ok block_tree_shuffles -- compile "$TMP/rows.mlir" --target ptx --emit=ptx
  out="$TMP/block_tree_shuffles.out"
  [[ $(grep -c "\.entry main_shardc_body_block_tree" "$out") -eq 3 ]] ||
    fail block_tree_shuffles "expected three block-tree kernels"
  [[ $(grep -c "shfl\.sync\.down\.b32" "$out") -eq 20 ]] ||
    fail block_tree_shuffles "expected 5 shuffles down a tree (10 for f64), 20 in all"
  [[ $(grep -c "shfl\.sync\.idx\.b32" "$out") -eq 4 ]] ||
    fail block_tree_shuffles "expected lane 0's total shuffled to every lane (2 for f64), 4 in all"
  # The artifact: an object whose host code only calls shardrt's CUDA part,
  # the manifest's target and kernels (launch shape, ptxas's registers).
  expect_ok object_sm_90a -- compile "$SEED" --target ptx --gpu sm_90a -o "$TMP/ptx_out" --quiet
  manifest="$TMP/ptx_out/manifest.json"
  grep -q '"target": "ptx-sm_90a"' "$manifest" || fail object_sm_90a "manifest target is not ptx-sm_90a"
  grep -q '"registers": [1-9]' "$manifest" || fail object_sm_90a "manifest lists no kernel registers"
  grep -q "^GPU kernels (ptx-sm_90a): [1-9][0-9]*, 0 spilling registers" "$TMP/ptx_out/report.txt" ||
    fail object_sm_90a "report.txt does not list the GPU kernels"
  grep -q '"location": ".*linear_regression_step.mlir:[0-9]*:[0-9]*"' "$manifest" ||
    fail object_sm_90a "manifest kernels name no source location"
  undefined=$("$NM" --undefined-only "$TMP/ptx_out/model.o" | awk '{print $NF}' | sort -u | tr '\n' ' ')
  for sym in $undefined; do
    [[ $sym == shardrt_cuda_* ]] || fail object_sm_90a "model.o imports $sym (only shardrt_cuda_* expected)"
  done
  [[ $undefined == *shardrt_cuda_launch* && $undefined == *shardrt_cuda_alloc* ]] ||
    fail object_sm_90a "model.o launches nothing or allocates nothing: $undefined"
  "$NM" --defined-only "$TMP/ptx_out/model.o" | grep -q " T main_shardc$" ||
    fail object_sm_90a "model.o exports no main_shardc"
  # Where there is no CUDA device, running it says so (exit 5), whatever
  # the reason: no driver, or the toolkit's link stub.
  expect_error run_without_device 5 "no CUDA device" "ptx-sm_90a" "--target cpu" -- \
    run "$TMP/ptx_out"
  STUB=/usr/local/cuda/lib64/stubs/libcuda.so
  if [[ -f $STUB ]]; then
    SHARDRT_CUDA_DRIVER=$STUB expect_error run_on_stub 5 "no CUDA device" "link stub" -- \
      run "$TMP/ptx_out"
  fi
  expect_error run_gpu_mpi $USAGE "--backend mpi is not available when the model runs as its standalone executable" "ptx-sm_90a" -- \
    run "$TMP/ptx_out" --backend mpi
  expect_ok emit_llvm_on_ptx -- compile "$SEED" --target ptx --emit=llvm
  grep -q "call i32 @shardrt_cuda_launch" "$TMP/emit_llvm_on_ptx.out" ||
    fail emit_llvm_on_ptx "the host LLVM IR launches no kernel"
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
      expect_ok "object_${name}_$arch" -- compile "$sample" --target ptx --gpu "$arch" \
        -o "$TMP/object_${name}_$arch" --quiet
      [[ -s "$TMP/object_${name}_$arch/model.o" ]] ||
        fail "object_${name}_$arch" "no model.o written"
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
prev=; for a; do [ "\$prev" = -o ] && : >"\$a"; prev=\$a; done
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
