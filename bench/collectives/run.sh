#!/usr/bin/env bash
# shardrt's all-reduce against simple baselines (bench/README.md): the
# threads backend on 2 ranks against a plain two-thread sum, then the MPI
# backend under `mpirun -np 2` against MPI_Allreduce.
#   bash bench/collectives/run.sh [REPS]
set -euo pipefail
cd "$(dirname "$0")/../.."
reps=${1:-7}
bash .ci/install-deps >/dev/null
bazel build //bench/collectives:threads //bench/collectives:mpi >/dev/null 2>&1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp bazel-bin/bench/collectives/threads bazel-bin/bench/collectives/mpi "$work/"
bazel shutdown >/dev/null 2>&1 || true
"$work/threads" --reps "$reps"
OMPI_MCA_btl=self,vader OMPI_MCA_plm_rsh_agent=false \
  mpirun --allow-run-as-root --oversubscribe -np 2 "$work/mpi" --reps "$reps"
