#!/usr/bin/env bash
# Profiles the bundle's GEMM benchmarks on the GPU machine with Nsight
# Compute (run from the unpacked bundle; the card's clocks are left as
# they are): every kernel of a benchmark's steps with its duration (where
# a step's time goes), then one launch of its GEMM kernel with speed of
# light, occupancy, memory workload and where the warps stall. Writes
# results/profile.txt. Needs Nsight Compute's counters (a Firecracker
# machine has them; gVisor's did not).
#   bash profile.sh [BENCH...]     default: gemm_bf16 gemm_f32
set -u
cd "$(dirname "$0")"
mkdir -p results
out=results/profile.txt
: >"$out"
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [[ -z $ncu ]]; then
  echo "ncu not found" | tee "$out"
  exit 1
fi
for bench in ${*:-gemm_bf16 gemm_f32}; do
  echo "== $bench: every kernel of 4 steps (3 warm-up, 1 timed), then cuBLAS's" >>"$out"
  timeout 120 "$ncu" --clock-control none --metrics gpu__time_duration.sum \
    "bin/bench_$bench" "$bench" --reps 1 2>&1 |
    grep -E '^  [A-Za-z_].*\(|gpu__time_duration' >>"$out" ||
    echo "ncu failed" >>"$out"
  echo "== $bench: one launch of its GEMM kernel" >>"$out"
  timeout 120 "$ncu" --clock-control none -k regex:gemm -c 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section LaunchStats \
    "bin/bench_$bench" "$bench" --reps 1 >>"$out" 2>&1 ||
    echo "ncu failed (exit $?)" >>"$out"
done
cat "$out"
