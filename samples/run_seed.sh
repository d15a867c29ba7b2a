#!/usr/bin/env bash
# The main job: build shardc, compile the seed (one linear-regression training
# step) for a 4-device mesh and run it on 4 CPU ranks (threads).
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/install-deps
bazel build //compiler/tools:shardc
status=0
bazel-bin/compiler/tools/shardc run samples/linear_regression_step.mlir --mesh data=4 \
  --in X=samples/linear_regression/X.npy \
  --in y=samples/linear_regression/y.npy \
  --in w=samples/linear_regression/w.npy \
  --out out/linear_regression || status=$?
bazel shutdown >/dev/null 2>&1 || true
exit $status
