#!/usr/bin/env bash
# Runs the GPU device bundle on a machine with an NVIDIA GPU (no Bazel,
# LLVM or MPI needed): each case's GPU executable on the case's inputs,
# every output against the CPU target's (expected/) within the case's
# tolerances. Writes results/results.txt as it goes (one PASS or FAIL line
# per case), stops starting cases after 4 minutes (the rest fail as "not
# run"), and prints "N passed, N failed"; then the benchmarks
# (results/bench.txt), whose ratios do not change the exit status.
#   bash run.sh [--quick]     --quick: the 1-rank cases and one 4-rank case,
#                             and only the f32 GEMM benchmark
# NCCL and cuBLAS may come from Python wheels: set VIRTUAL_ENV to the
# environment that holds them (on the machines tried, /opt/torch/.venv).
set -u
cd "$(dirname "$0")"
quick=0
[[ ${1:-} == --quick ]] && quick=1
mkdir -p results
: >results/results.txt
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 || true
  uname -srm
  ldd --version 2>&1 | head -1
  # A library the build machine linked that this one lacks fails every case
  # the same way; say so once, up front.
  ldd bin/npycmp 2>&1 | grep -i "not found" || echo "npycmp: every library found"
} >results/device.txt
cat results/device.txt
start=$SECONDS passed=0 failed=0
record() { echo "$*" | tee -a results/results.txt; }
while IFS=$'\t' read -r case exe rtol atol args; do
  [[ $case == case ]] && continue
  if [[ $quick == 1 && $case != mlp_1rank/* && $case != mlp/sm_90 ]]; then continue; fi
  if ((SECONDS - start > 240)); then
    record "FAIL $case not run (the 4-minute limit)"
    failed=$((failed + 1))
    continue
  fi
  dir=results/${case//\//.}
  t0=$(date +%s%N)
  # shellcheck disable=SC2086
  timeout 30 "bin/$exe" $args --out "$dir" >"$dir.log" 2>&1
  rc=$?
  ms=$((($(date +%s%N) - t0) / 1000000))
  secs=$((ms / 1000)).$(printf '%03d' $((ms % 1000)))
  if [[ $rc -ne 0 ]]; then
    record "FAIL $case exit $rc in ${secs} s: $(tail -2 "$dir.log" | tr '\n' ' ')"
    failed=$((failed + 1))
    continue
  fi
  name=${case%%/*} bad=""
  for want in expected/"$name"/*.npy; do
    got=$dir/$(basename "$want")
    if ! msg=$(bin/npycmp "$want" "$got" --rtol "$rtol" --atol "$atol"); then
      bad+="$(basename "$want"): $msg; "
    fi
  done
  if [[ -n $bad ]]; then
    record "FAIL $case $bad"
    failed=$((failed + 1))
  else
    record "PASS $case ${secs} s"
    passed=$((passed + 1))
  fi
done <cases.tsv
record "$passed passed, $failed failed"

# Benchmarks: shardc against cuBLAS and a device copy, in the same run.
: >results/bench.txt
benches="gemm_f32 gemm_tf32 gemm_bf16 chain"
[[ $quick == 1 ]] && benches="gemm_f32"
for b in $benches; do
  timeout 60 "bin/bench_$b" "$b" --reps 10 >>results/bench.txt 2>&1 ||
    echo "bench $b failed (exit $?)" >>results/bench.txt
done
# shardrt's all-reduce against raw NCCL at one rank (any bench binary).
for b in $([[ $quick == 1 ]] || echo chain); do
  timeout 60 "bin/bench_$b" allreduce --reps 10 >>results/bench.txt 2>&1 ||
    echo "bench allreduce failed (exit $?)" >>results/bench.txt
done
cat results/bench.txt
[[ $failed -eq 0 ]]
