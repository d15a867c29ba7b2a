#!/bin/bash
# Runs the MPI backend's checks under `mpirun -np 4`: the collectives (in one
# MPI call each, then in 5-byte chunks), then
# three failures (a late rank, a rank that finalizes early, shardrt_abort),
# each of which must end the job with a non-zero status and a message instead
# of hanging.
# Fails when mpirun is not installed (.ci/install-deps installs Open MPI).
set -u
bin=$1
if ! command -v mpirun >/dev/null 2>&1; then
  echo "FAILED: mpirun not found; install Open MPI (bash .ci/install-deps does)"
  exit 1
fi
export OMPI_MCA_btl=self,vader
export OMPI_MCA_plm_rsh_agent=false
tmp=${TEST_TMPDIR:-$(mktemp -d)}
mpirun=(mpirun --allow-run-as-root --oversubscribe -np 4)
status=0

# collectives LABEL [ENV=VALUE]: every collective on every rank, checked.
collectives() {
  local label=$1 rc oks
  shift
  env "$@" timeout -k 10 180 "${mpirun[@]}" ${1:+-x "${1%%=*}"} "$bin" collectives \
    >"$tmp/collectives.log" 2>&1
  rc=$?
  cat "$tmp/collectives.log"
  oks=$(grep -c '^rank [0-3]: OK$' "$tmp/collectives.log")
  if [ "$rc" -ne 0 ] || [ "$oks" -ne 4 ]; then
    echo "FAIL: collectives ($label): exit status $rc, $oks of 4 ranks OK"
    status=1
  fi
}
collectives "one MPI call each"
# 5 bytes per MPI call: every collective goes in many chunks (the path
# buffers over 1 GiB take); all_gather, all_to_all and collective_permute
# cut elements in two, all_reduce and reduce_scatter send one element a call.
collectives "5-byte chunks" SHARDRT_MPI_CHUNK_BYTES=5

# Each failure mode must end the whole job, non-zero, with its message, long
# before the outer `timeout` (which is only there so a broken build cannot
# hang the test; -k because a wedged mpirun ignores SIGTERM).
expect_job_ends() { # mode, message regex
  local mode=$1 pattern=$2 start rc elapsed
  start=$(date +%s)
  SHARDRT_TIMEOUT_S=2 timeout -k 10 120 "${mpirun[@]}" -x SHARDRT_TIMEOUT_S "$bin" "$mode" \
    >"$tmp/$mode.log" 2>&1
  rc=$?
  elapsed=$(($(date +%s) - start))
  cat "$tmp/$mode.log"
  # 0 means the job did not fail; 124 and up mean `timeout` or a signal
  # ended mpirun itself.
  if [ "$rc" -eq 0 ] || [ "$rc" -ge 124 ] || [ "$elapsed" -gt 60 ] ||
    ! grep -Eq "$pattern" "$tmp/$mode.log" || grep -q 'which it should not have' "$tmp/$mode.log"; then
    echo "FAIL: $mode: exit status $rc after ${elapsed}s"
    status=1
  fi
}
expect_job_ends timeout 'shardrt: rank [0-2]: collective all_reduce over group \[0,1,2,3\] timed out after 2 s'
expect_job_ends finalize 'shardrt: rank [0-3]: .*timed out after 2 s'
expect_job_ends abort 'shardrt: rank 1: bad batch; aborting the MPI job'

# A chunk size that is not a byte count in [1, 1 GiB] is refused at init.
SHARDRT_MPI_CHUNK_BYTES=0 timeout -k 10 60 "${mpirun[@]}" -x SHARDRT_MPI_CHUNK_BYTES "$bin" \
  collectives >"$tmp/chunk.log" 2>&1
rc=$?
cat "$tmp/chunk.log"
if [ "$rc" -eq 0 ] || [ "$rc" -ge 124 ] ||
  ! grep -q "SHARDRT_MPI_CHUNK_BYTES='0' is not a byte count in \[1, 1073741824\]" "$tmp/chunk.log"; then
  echo "FAIL: SHARDRT_MPI_CHUNK_BYTES=0: exit status $rc"
  status=1
fi

[ "$status" -eq 0 ] && echo "PASS: collectives (whole and in 5-byte chunks), timeout, early finalize, abort and a bad chunk size under mpirun -np 4"
exit "$status"
