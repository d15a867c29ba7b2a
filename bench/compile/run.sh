#!/usr/bin/env bash
# Compile time against program length: `shardc compile` of an elementwise
# chain of N ops (add, mul, neg on tensor<64x64xf32>, split over 2 devices),
# for N = 1k .. 20k. Prints seconds per compile, microseconds per op, and the
# ratio of each time to the one for half as many ops (2.0 is linear). The
# baseline is shardc itself at N/2: the claim measured is linearity.
#   bash bench/compile/run.sh [N...]
set -euo pipefail
cd "$(dirname "$0")/../.."
bazel build //compiler/tools:shardc >/dev/null
SHARDC=bazel-bin/compiler/tools/shardc
sizes=("${@:-1000 2000 4000 8000 10000 20000}")
read -r -a sizes <<<"${sizes[*]}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chain() { # chain N > model.mlir
  local n=$1 prev='%x' i
  echo 'garray.mesh @mesh ["data" = 2]'
  echo 'func.func @main(%x: tensor<64x64xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<64x64xf32> {'
  for ((i = 0; i < n; ++i)); do
    case $((i % 3)) in
      0) echo "  %v$i = garray.add $prev, %x : tensor<64x64xf32>" ;;
      1) echo "  %v$i = garray.mul $prev, $prev : tensor<64x64xf32>" ;;
      2) echo "  %v$i = garray.neg $prev : tensor<64x64xf32>" ;;
    esac
    prev="%v$i"
  done
  echo "  return $prev : tensor<64x64xf32>"
  echo '}'
}
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%8s %10s %10s %12s\n' ops seconds us/op vs_half
declare -A took
for n in "${sizes[@]}"; do
  chain "$n" >"$tmp/m$n.mlir"
  start=$(date +%s.%N)
  "$SHARDC" compile "$tmp/m$n.mlir" -o "$tmp/out$n" --quiet
  end=$(date +%s.%N)
  took[$n]=$(echo "$end - $start" | bc -l)
  half=$((n / 2))
  ratio="-"
  [[ -n "${took[$half]:-}" ]] && ratio=$(printf '%.2f' "$(echo "${took[$n]} / ${took[$half]}" | bc -l)")
  printf '%8d %10.2f %10.1f %12s\n' "$n" "${took[$n]}" "$(echo "${took[$n]} * 1000000 / $n" | bc -l)" "$ratio"
done
bazel shutdown >/dev/null 2>&1 || true
