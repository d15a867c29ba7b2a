#!/usr/bin/env bash
# The per-device memory estimate (manifest "memory", report) and
# --memory-budget. Hand-computed peaks for memory_replicated.mlir on
# mesh data=4 (f32 = 4 B; ops: 0 %c=a+b, 1 %d=c*c, 2 %w2=w+w, 3 return):
#   arguments, live throughout: a, b 64x32 P("data",None) → 16x32x4 = 2048 B each;
#                               w 256x64 P() → 256x64x4 = 65536 B   (base 69632)
#   %c live [0,1] 2048, %d [1,end] 2048, %w2 [2,end] 65536
#   point 0: 69632+2048 = 71680; point 1: +c+d = 73728;
#   point 2: base + d + w2 = 69632+2048+65536 = 137216  ← peak
# memory_sharded.mlir (w P("data",None)), same liveness:
#   data=4: a,b 2048, w 16384 (base 20480); point 2: +2048+16384 = 38912
#   data=2: a,b 4096, w 32768 (base 40960); point 2: +4096+32768 = 77824
# memory_callee.mlir on data=4: @helper(a 8 B) makes %big and %e, 8x4096
#   P("data", None) → 2x4096x4 = 32768 B each, live together at exp: helper
#   temporaries (without its argument and returned value) 32768 + 32768 =
#   65536, held while the call runs; main: x 8 + call result 8 + 65536 = 65552
# memory_callee_returns.mlir on data=4: @wide returns its 8x4096 value, so it
#   has no temporaries; main: x 8 + call result 32768 = 32776 (counted once)
# memory_blocks.mlir on data=2: w 1024x1024 P() 4194304 B, x 8 P("data") 16 B,
#   then, after the branch, exp and tanh 4194304 B each, live together at
#   tanh: 3 x 4194304 + 16 = 12582928
# memory_block_order.mlir on data=2: ^bb2 (v = exp w) runs before ^bb1 (e, f)
#   but is written after it; v leaves its block, so it counts everywhere:
#   w + v + e + f = 4 x 4194304, + x 16 = 16777232
set -u
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
REPL="$ROOT/tests/cli/memory_replicated.mlir"
SHARDED="$ROOT/tests/cli/memory_sharded.mlir"

peak_of() { # peak_of MANIFEST: the peak_bytes_per_device number
  grep -o '"peak_bytes_per_device": [0-9]*' "$1" | grep -o '[0-9]*$'
}

if expect_ok mem_replicated -- compile "$REPL" --mesh data=4 -o "$TMP/repl4"; then
  check mem_replicated "peak is 137216" test "$(peak_of "$TMP/repl4/manifest.json")" = 137216
  check mem_replicated "manifest lists w" contains "$TMP/repl4/manifest.json" "\"name\": \"argument 'w'\""
  check mem_replicated "report.txt shows the peak" \
    contains "$TMP/repl4/report.txt" "memory: peak 137216 B"
fi
CALLEE="$ROOT/tests/cli/memory_callee.mlir"
if expect_ok mem_callee -- compile "$CALLEE" --mesh data=4 -o "$TMP/callee"; then
  check mem_callee "peak counts the callee's temporaries: 65552" \
    test "$(peak_of "$TMP/callee/manifest.json")" = 65552
  check mem_callee "the largest values name the callee's" \
    contains "$TMP/callee/manifest.json" "\"name\": \"garray.exp in @helper\""
fi
if expect_ok mem_callee_returns -- compile "$ROOT/tests/cli/memory_callee_returns.mlir" \
  --mesh data=4 -o "$TMP/returns"; then
  check mem_callee_returns "a returned value is counted once: 32776" \
    test "$(peak_of "$TMP/returns/manifest.json")" = 32776
fi
if expect_ok mem_sharded4 -- compile "$SHARDED" --mesh data=4 -o "$TMP/sh4"; then
  check mem_sharded4 "peak is 38912" test "$(peak_of "$TMP/sh4/manifest.json")" = 38912
fi
if expect_ok mem_sharded2 -- compile "$SHARDED" --mesh data=2 -o "$TMP/sh2"; then
  check mem_sharded2 "peak is 77824" test "$(peak_of "$TMP/sh2/manifest.json")" = 77824
  check mem_sharded2 "more devices, lower peak" \
    test "$(peak_of "$TMP/sh4/manifest.json")" -lt "$(peak_of "$TMP/sh2/manifest.json")"
fi
if expect_ok mem_blocks -- compile "$ROOT/tests/cli/memory_blocks.mlir" --mesh data=2 \
  -o "$TMP/blocks"; then
  check mem_blocks "values after a branch count: 12582928" \
    test "$(peak_of "$TMP/blocks/manifest.json")" = 12582928
fi
if expect_ok mem_block_order -- compile "$ROOT/tests/cli/memory_block_order.mlir" --mesh data=2 \
  -o "$TMP/order"; then
  check mem_block_order "blocks out of run order: 16777232" \
    test "$(peak_of "$TMP/order/manifest.json")" = 16777232
fi
expect_error mem_budget_group 3 "exceeds --memory-budget=1024" \
  "argument 'mu': tensor<64x64xf32> P(None, \"model\")" \
  "its sharding group 0 gives it the layout of the group's members" \
  "shard the group: annotate its members alike" \
  "result 'z': tensor<64x64xf32> P(None, None)" \
  "no mesh axis splits it; its annotation places it so" \
  "argument 'w': tensor<64x64xf32> P(\"model\", None)" \
  "it is not annotated, and no annotation that reaches it splits it over these axes" \
  -- report "$ROOT/tests/cli/memory_group.mlir" --memory-budget=1K
expect_error mem_budget_conflict 3 "exceeds --memory-budget=1024" \
  "result 'ab': tensor<128x64xf32> P(None, None)" \
  "its operands reach 'garray.add' at" "in different layouts, P(\"data\", None) and P(\"model\", None)," \
  "argument 'E': tensor<128x64xf32> P(None, None)" \
  "it is not annotated, and no annotation that reaches it splits it" \
  -- report "$ROOT/tests/cli/memory_conflict.mlir" --memory-budget=1K
expect_error mem_budget_other_axis 3 "exceeds --memory-budget=1024" \
  "a copy of argument 'y' at" "in another layout, which was already whole over these axes: its annotation places it so" \
  "garray.add: tensor<64x128xf32> P(\"data\", None)" "!in different layouts" \
  -- report "$ROOT/tests/cli/memory_other_axis.mlir" --memory-budget=1K --split-idle-axes=false
expect_error mem_budget_partial 3 "exceeds --memory-budget=1024" \
  "garray.max: tensor<128x64xf32> P(\"data\", None)" "!different layouts" \
  -- report "$ROOT/tests/cli/memory_partial.mlir" --memory-budget=1K
if expect_ok mem_report -- report "$REPL" --mesh data=4; then
  check mem_report "report prints the peak" contains "$TMP/mem_report.out" "memory: peak 137216 B"
fi

# Budgets: exactly the peak fits, one byte less does not.
expect_ok mem_budget_fits -- report "$REPL" --mesh data=4 --memory-budget=137216
expect_ok mem_budget_suffix_fits -- report "$REPL" --mesh data=4 --memory-budget 134K
expect_error mem_budget_over 3 "estimated peak memory 137216 B" "--memory-budget=137215" \
  "argument 'w': tensor<256x64xf32> P(None, None), 65536 B" \
  "replicated: each of the 4 devices holds the whole value" \
  "no mesh axis splits it; its annotation places it so" \
  "propagation gave it the layout that reaches it, which does not split it over" \
  "dimension 0 over \"data\"" "result 'w2'" \
  -- compile "$REPL" --mesh data=4 --memory-budget=137215 -o "$TMP/over"
check mem_budget_over "writes no output" test ! -e "$TMP/over/model.o"
expect_error mem_budget_run 3 "exceeds --memory-budget=65536" "replicated" \
  -- run "$REPL" --mesh data=4 --memory-budget=64K
expect_error mem_budget_dir 3 "exceeds --memory-budget=102400" "argument 'w'" \
  -- run "$TMP/repl4" --memory-budget=100K
# Sharded values are listed but get no replication advice.
expect_error mem_budget_sharded 3 "P(\"data\", None)" "!replicated" \
  -- report "$SHARDED" --mesh data=4 --memory-budget=1K
expect_error mem_budget_bad 2 "--memory-budget=12Q" "512K" \
  -- report "$REPL" --memory-budget=12Q
expect_error mem_budget_zero 2 "--memory-budget=0" -- report "$REPL" --memory-budget=0
expect_error mem_budget_missing 2 "--memory-budget needs a value" -- report "$REPL" --memory-budget

finish
