# shellcheck shell=bash
# Sourced by tests/run.sh and tests/quick.sh. bazel_test_summary ARGS... runs
# `bazel test ARGS...`, counts the test targets that passed and failed in its
# output, shuts bazel down, and ends with the line "N passed, N failed"; it
# returns non-zero when bazel or any test failed. Checks run outside bazel
# test add to the counts through EXTRA_PASSED and EXTRA_FAILED.
#
# A test that could not run at all (no CUDA toolkit, say) prints a line
# starting "skipped: " and exits 0; Bazel reports it PASSED, but it did not
# pass: it is listed and counted as skipped, never as passed.
#
# A failed target is reported between "=== failure: TARGET" and "=== end
# of failure" lines, with the end of its test log.
bazel_test_summary() {
  local log rc passed failed
  log=$(mktemp)
  # rc is bazel's status whatever the caller's pipefail/errexit settings.
  { bazel test "$@" 2>&1 | tee "$log"; rc=${PIPESTATUS[0]}; } || true
  passed=$(grep -cE '^//\S+\s+(\(cached\) )?PASSED' "$log" || true)
  failed=$(grep -cE '^//\S+\s+.*(FAILED|TIMEOUT|NO STATUS|INCOMPLETE)' "$log" || true)
  if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
    failed=1 # the build itself failed before any test could report
    echo "bazel exited with status $rc before tests reported; see the log above"
    echo "=== failure: bazel test $*"
    grep -E '^ERROR: ' "$log" | head -20 | sed 's/^/  | /'
    echo "=== end of failure"
  fi
  local testlogs target skipped=0
  testlogs=$(bazel info bazel-testlogs 2>/dev/null || true)
  if [ -n "$testlogs" ]; then
    for target in $(grep -E '^//\S+\s+(\(cached\) )?PASSED' "$log" | awk '{print $1}'); do
      target=${target#//}
      if grep -q '^skipped: ' "$testlogs/${target/://}/test.log" 2>/dev/null; then
        echo "skipped (did not run; not counted as passed): //$target"
        skipped=$((skipped + 1))
      fi
    done
  fi
  passed=$((passed - skipped))
  # Each failed target's name and the end of its log, between markers that
  # .ci/run collects and prints again after its last stage, so a failure
  # early in a long run is still on the last screen of the output.
  for target in $(grep -E '^//\S+\s+.*(FAILED|TIMEOUT|NO STATUS|INCOMPLETE)' "$log" | awk '{print $1}'); do
    echo "=== failure: $target"
    grep -E "^$target\s" "$log" | head -1
    target=${target#//}
    tail -40 "$testlogs/${target/://}/test.log" 2>/dev/null | sed 's/^/  | /' || true
    echo "=== end of failure"
  done
  [ "$skipped" -eq 0 ] || echo "$skipped skipped"
  passed=$((passed + ${EXTRA_PASSED:-0}))
  failed=$((failed + ${EXTRA_FAILED:-0}))
  rm -f "$log"
  bazel shutdown >/dev/null 2>&1 || true
  echo "$passed passed, $failed failed"
  [ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
}
