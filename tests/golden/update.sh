#!/usr/bin/env bash
# Regenerates tests/golden/expected from the current build of shardc.
set -euo pipefail
cd "$(dirname "$0")/../.."
bazel build //compiler/tools:shardc
source tests/golden/golden_lib.sh
rm -rf tests/golden/expected
golden_outputs "$PWD/bazel-bin/compiler/tools/shardc" tests/golden/expected
git status --short tests/golden/expected
