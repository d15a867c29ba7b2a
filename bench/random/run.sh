#!/usr/bin/env bash
# The differential tester at full length: 1,000 random garray programs (seed
# given or 1), each compiled and run on the 1-device mesh and two larger
# ones, against the double-precision reference interpreter and the 1-device
# run. Prints the op and collective coverage and fails on any mismatch,
# compile error or op never generated. Failing programs and their inputs go
# to the folder printed at the end, with a `shardc run` line each.
#   bash bench/random/run.sh [SEED] [PROGRAMS]
set -euo pipefail
cd "$(dirname "$0")/../.."
seed=${1:-1}
programs=${2:-1000}
bazel build //tests/random:random_programs >/dev/null
keep=$(mktemp -d /tmp/shardc-random.XXXXXX)
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
bazel-bin/tests/random/random_programs --seed="$seed" --programs="$programs" --keep="$keep" || status=$?
echo "failing programs (if any): $keep"
bazel shutdown >/dev/null 2>&1 || true
exit "$status"
