#!/usr/bin/env bash
# Peak memory of `shardc compile` on inputs of about 1 MiB, each of a kind
# that grows a different part of the compiler: a long elementwise chain, a
# dense constant, many helper functions and calls, large (but legal) shapes
# and splat constants, a 65,536-device mesh with reshards, a wide model of
# many independent matmuls. Prints each input's size, the exit status,
# seconds and peak resident memory (GNU time), and fails when a compile
# needs more than 4 GiB or ends with a signal. The baseline is the bound:
# 4 GiB per compile of a 1 MiB input.
#   bash bench/compile/memory.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
bazel build //compiler/tools:shardc >/dev/null 2>&1
SHARDC=$PWD/bazel-bin/compiler/tools/shardc
[[ -x /usr/bin/time ]] || { echo "needs GNU time (apt-get install time)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
limit_kb=$((4 * 1024 * 1024))

chain() { # ~1 MiB: an elementwise chain of 20,000 ops
  local prev='%x' i
  echo 'garray.mesh @mesh ["data" = 2]'
  echo 'func.func @main(%x: tensor<64x64xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<64x64xf32> {'
  for ((i = 0; i < 20000; ++i)); do
    echo "  %v$i = garray.add $prev, %x : tensor<64x64xf32>"
    prev="%v$i"
  done
  echo "  return $prev : tensor<64x64xf32>"
  echo '}'
}
dense() { # ~1 MiB: one constant of 200,000 elements
  echo 'garray.mesh @mesh ["data" = 4]'
  echo 'func.func @main(%x: tensor<200000xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<200000xf32> {'
  printf '  %%c = garray.constant dense<['
  awk 'BEGIN { for (i = 0; i < 200000; ++i) printf "%s%d.5", (i ? "," : ""), i % 7 }'
  echo ']> : tensor<200000xf32>'
  echo '  %r = garray.add %x, %c : tensor<200000xf32>'
  echo '  return %r : tensor<200000xf32>'
  echo '}'
}
calls() { # ~1 MiB: 4,000 helpers, each called once
  local i
  echo 'garray.mesh @mesh ["data" = 2]'
  for ((i = 0; i < 4000; ++i)); do
    echo "func.func private @f$i(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {"
    echo "  %r = garray.mul %a, %a : tensor<8x8xf32>"
    echo "  return %r : tensor<8x8xf32>"
    echo "}"
  done
  echo 'func.func @main(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<8x8xf32> {'
  local prev='%x'
  for ((i = 0; i < 4000; ++i)); do
    echo "  %v$i = call @f$i($prev) : (tensor<8x8xf32>) -> tensor<8x8xf32>"
    prev="%v$i"
  done
  echo "  return $prev : tensor<8x8xf32>"
  echo '}'
}
huge_shapes() { # 4 GiB arrays (legal shapes), 2,000 ops
  local prev='%x' i
  echo 'garray.mesh @mesh ["data" = 8]'
  echo 'func.func @main(%x: tensor<65536x16384xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<65536x16384xf32> {'
  echo '  %h = garray.constant dense<0.5> : tensor<f32>'
  echo '  %c = garray.broadcast_in_dim %h, dims = [] : (tensor<f32>) -> tensor<65536x16384xf32>'
  for ((i = 0; i < 2000; ++i)); do
    echo "  %v$i = garray.mul $prev, %c : tensor<65536x16384xf32>"
    prev="%v$i"
  done
  echo "  return $prev : tensor<65536x16384xf32>"
  echo '}'
}
big_mesh() { # 65,536 devices, 2,000 reshards (each a 65,536-pair permute)
  local prev='%x' i spec
  echo 'garray.mesh @mesh ["a" = 256, "b" = 256]'
  echo 'func.func @main(%x: tensor<512x512xf32> {garray.sharding = #garray.sharding<@mesh, P("a", "b")>}) -> tensor<512x512xf32> {'
  for ((i = 0; i < 2000; ++i)); do
    if ((i % 2)); then spec='P("a", "b")'; else spec='P("b", "a")'; fi
    echo "  %c$i = garray.sharding_constraint $prev : tensor<512x512xf32> to #garray.sharding<@mesh, $spec>"
    echo "  %v$i = garray.exp %c$i : tensor<512x512xf32>"
    prev="%v$i"
  done
  echo "  return $prev : tensor<512x512xf32>"
  echo '}'
}
matmuls() { # 3,000 independent matmuls summed
  local i
  echo 'garray.mesh @mesh ["data" = 2, "model" = 2]'
  echo 'func.func @main(%x: tensor<64x64xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}, %w: tensor<64x64xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "model")>}) -> tensor<64x64xf32> {'
  echo '  %s0 = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>'
  for ((i = 1; i < 3000; ++i)); do
    echo "  %p$i = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>"
    echo "  %s$i = garray.add %s$((i - 1)), %p$i : tensor<64x64xf32>"
  done
  echo "  return %s2999 : tensor<64x64xf32>"
  echo '}'
}

echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-12s %10s %6s %10s %12s\n' input bytes exit seconds peak_MiB
worst=0 failed=0
for kind in chain dense calls huge_shapes big_mesh matmuls; do
  "$kind" >"$tmp/$kind.mlir"
  bytes=$(stat -c %s "$tmp/$kind.mlir")
  set +e
  /usr/bin/time -f '%e %M' -o "$tmp/$kind.time" "$SHARDC" compile "$tmp/$kind.mlir" \
    -o "$tmp/$kind.out" --quiet >"$tmp/$kind.log" 2>&1
  rc=$?
  set -e
  # GNU time puts "Command exited with non-zero status N" first.
  read -r secs kb < <(tail -1 "$tmp/$kind.time") || { secs=?; kb=0; }
  printf '%-12s %10d %6d %10s %12d\n' "$kind" "$bytes" "$rc" "$secs" $((kb / 1024))
  ((rc == 0)) || head -c 300 "$tmp/$kind.log" | sed 's/^/    /'
  ((kb > worst)) && worst=$kb
  if ((kb > limit_kb || rc >= 128)); then failed=1; fi
done
echo "largest peak: $((worst / 1024)) MiB (bound: 4096 MiB)"
bazel shutdown >/dev/null 2>&1 || true
exit "$failed"
