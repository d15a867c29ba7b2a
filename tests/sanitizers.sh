#!/usr/bin/env bash
# The sanitizer stage of CI (.ci/run):
#   ASan + UBSan  the IR-free code: runtime and sharding-core tests;
#   TSan          the threads communicator (blocking and asynchronous),
#                 the planner's collectives and the profiling probes;
#   UBSan         the quick suite's compiler tests (lit, passes, golden,
#                 import) and the C API's test,
#                 which link libMLIR: ASan is not usable there (an
#                 uninstrumented libMLIR writes memory that LLVM's headers
#                 poisoned in instrumented code; docs/testing.md);
#   Valgrind      the compiler itself compiling every sample and importing
#                 every import test's input (tests/memcheck.sh), which
#                 catches what ASan would there.
# Ends with "N passed, N failed", the sum of the four; exits non-zero on
# any failure.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
bash .ci/install-deps || exit 1
source tests/summary.sh
passed=0 failed=0 status=0
run() { # run ARGS...: one bazel_test_summary, added to the totals
  stage bazel_test_summary "$@"
}
stage() { # stage COMMAND...: runs it, adds its "N passed, N failed" to the totals
  local out line
  out=$(mktemp)
  "$@" | tee "$out"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -1)
  rm -f "$out"
  [[ -n $line ]] || line="0 passed, 1 failed" # it ended before counting
  passed=$((passed + ${line%% *}))
  failed=$((failed + $(echo "$line" | cut -d' ' -f3)))
}
# Cached results are not reused: every stage runs its tests again.
run --config=asan --nocache_test_results //tests/runtime/... //tests/sharding/... \
  --test_tag_filters=-mpi
run --config=tsan --nocache_test_results //tests/runtime:threads_comm_test \
  //tests/runtime:async_all_reduce_test //tests/runtime:async_reduce_scatter_test \
  //tests/runtime:profile_test //tests/runtime:shared_loops_test //tests/runtime:parallel_for_test \
  //tests/runtime:planner_collectives_test //tests/runtime/cuda:cuda_runtime_test \
  //tests/runtime/cuda:cuda_nccl_test
run --config=ubsan --nocache_test_results //tests/lit/... //tests/passes/... //tests/golden/... \
  //tests/import/... //tests/capi/... --test_tag_filters=-exec,-cli,-mpi
stage bash tests/memcheck.sh
echo "$passed passed, $failed failed"
[[ $status -eq 0 && $failed -eq 0 ]]
