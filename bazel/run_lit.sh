#!/bin/bash
# Runs lit over one test file from the Bazel runfiles tree. lit is Debian's
# (python3 -m lit does not work there; see shared/TOOLCHAIN.md §1).
set -euo pipefail
cd "$TEST_SRCDIR/$TEST_WORKSPACE"
exec /usr/lib/llvm-22/bin/lit -v "$@"
