#!/usr/bin/env bash
# Checks that Bazel visibility enforces the layers of bazel/BUILD:
#   sharding/ <- dialects/ <- passes/ <- compiler/, runtime/ depends on none.
# For each edge that points the wrong way it writes a throwaway probe
# package that depends across it and expects analysis to refuse it as "not
# visible"; one legal edge must be accepted, so the check cannot pass by
# refusing everything. Prints one line per edge; exits non-zero on failure.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

probes=()
cleanup() { for p in "${probes[@]}"; do rm -rf "$p"; done; }
trap cleanup EXIT

# probe PACKAGE DEP EXPECT: EXPECT is "refused" or "accepted".
failed=0
probe() {
  local pkg=$1 dep=$2 expect=$3 dir="$1/layering_probe" out got rc
  probes+=("$dir")
  mkdir -p "$dir"
  printf 'cc_library(name = "probe", deps = ["%s"])\n' "$dep" >"$dir/BUILD"
  out=$(bazel build --nobuild "//$dir:probe" 2>&1)
  rc=$?
  if grep -q "is not visible from target" <<<"$out"; then
    got=refused
  elif [[ $rc -eq 0 ]]; then
    got=accepted
  else
    got="failed otherwise"
  fi
  rm -rf "$dir"
  if [[ $got == "$expect" ]]; then
    echo "ok   //$pkg -> $dep $got"
  else
    echo "FAIL //$pkg -> $dep: expected $expect, got $got"
    echo "$out" | tail -5
    failed=1
  fi
}

probe dialects //passes:global refused
probe dialects //passes:passes refused
probe sharding //dialects refused
probe passes //compiler/pipeline refused
probe runtime //sharding refused
probe runtime //dialects refused
probe passes //dialects accepted
exit $failed
