#!/bin/bash
# Runs the MPI backend's checks under `mpirun -np 4`: the collectives, then a
# collective that times out and one that is aborted, both of which must end
# the job with a non-zero status and a message instead of hanging.
# Skips (exit 0) only when mpirun is not installed.
set -u
bin=$1
if ! command -v mpirun >/dev/null 2>&1; then
  echo "SKIPPED: mpirun not found"
  exit 0
fi
export OMPI_MCA_btl=self,vader
export OMPI_MCA_plm_rsh_agent=false
tmp=${TEST_TMPDIR:-$(mktemp -d)}
mpirun=(mpirun --allow-run-as-root --oversubscribe -np 4)
status=0

timeout 180 "${mpirun[@]}" "$bin" collectives >"$tmp/collectives.log" 2>&1
rc=$?
cat "$tmp/collectives.log"
oks=$(grep -c '^rank [0-3]: OK$' "$tmp/collectives.log")
if [ "$rc" -ne 0 ] || [ "$oks" -ne 4 ]; then
  echo "FAIL: collectives: exit status $rc, $oks of 4 ranks OK"
  status=1
fi

start=$(date +%s)
SHARDRT_TIMEOUT_S=2 timeout 120 "${mpirun[@]}" -x SHARDRT_TIMEOUT_S "$bin" timeout \
  >"$tmp/timeout.log" 2>&1
rc=$?
elapsed=$(($(date +%s) - start))
cat "$tmp/timeout.log"
if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ] || [ "$elapsed" -gt 60 ] ||
  ! grep -q 'collective all_reduce over group \[0,1,2,3\] timed out after 2 s' "$tmp/timeout.log" ||
  grep -q 'which it should not have' "$tmp/timeout.log"; then
  echo "FAIL: timeout: exit status $rc after ${elapsed}s"
  status=1
fi

timeout 120 "${mpirun[@]}" "$bin" abort >"$tmp/abort.log" 2>&1
rc=$?
cat "$tmp/abort.log"
if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ] || ! grep -q 'shardrt: rank 1: bad batch' "$tmp/abort.log" ||
  grep -q 'which it should not have' "$tmp/abort.log"; then
  echo "FAIL: abort: exit status $rc"
  status=1
fi

[ "$status" -eq 0 ] && echo "PASS: collectives, timeout and abort under mpirun -np 4"
exit "$status"
