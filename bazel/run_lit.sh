#!/bin/bash
# Runs lit over one test file from the Bazel runfiles tree. lit is Debian's
# /usr/lib/llvm-22/bin/lit (its module is not on python3's path, so
# python3 -m lit does not work).
set -euo pipefail
cd "$TEST_SRCDIR/$TEST_WORKSPACE"
exec /usr/lib/llvm-22/bin/lit -v "$@"
