# Shared helpers for the shardc command-line tests (sourced, bash).
#
# Under `bazel test` the binaries and samples come from runfiles; run by hand
# from anywhere, they come from the repository's bazel-bin/ (build
# //compiler/tools:shardc and //tests/cli:npy_tool first).
#
#   expect_error NAME CODES KEYWORD... -- ARGS...
#       shardc ARGS must exit with one of CODES ("4", or "2|3"), print every
#       KEYWORD (fixed strings) on stderr, and not crash or hang. A KEYWORD
#       written '!TEXT' must NOT appear on stderr.
#   expect_ok NAME -- ARGS...
#       shardc ARGS must exit 0 without crashing; stdout is in $TMP/NAME.out.
#   finish
#       prints the summary and exits non-zero if any case failed.

if [[ -n "${TEST_SRCDIR:-}" ]]; then
  ROOT="$TEST_SRCDIR/${TEST_WORKSPACE:-shardc}"
  BIN="$ROOT"
else
  ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  BIN="$ROOT/bazel-bin"
fi
SHARDC="$BIN/compiler/tools/shardc"
NPY="$BIN/tests/cli/npy_tool"
SEED="$ROOT/samples/linear_regression_step.mlir"
SEED_DATA="$ROOT/samples/linear_regression"
SEED_IN=(--in "X=$SEED_DATA/X.npy" --in "y=$SEED_DATA/y.npy" --in "w=$SEED_DATA/w.npy")

if [[ -n "${TEST_TMPDIR:-}" ]]; then
  TMP="$TEST_TMPDIR"
else
  TMP="$(mktemp -d)"
  trap 'rm -rf "$TMP"' EXIT
fi
# Relative outputs (e.g. shardc's default out/) land in the scratch directory.
cd "$TMP" || exit 1

for tool in "$SHARDC" "$NPY"; do
  if [[ ! -x "$tool" ]]; then
    echo "missing $tool; bazel build //compiler/tools:shardc //tests/cli:npy_tool" >&2
    exit 1
  fi
done

CASES=0
FAILED=0
FAILED_NAMES=()
LAST_STATUS=0

# Per-command limit: a hang is a failure, not a stuck test.
SHARDC_TIMEOUT_S="${SHARDC_TIMEOUT_S:-120}"

fail() {
  local name=$1
  shift
  echo "FAIL $name: $*"
  FAILED=$((FAILED + 1))
  FAILED_NAMES+=("$name")
}

show() {
  local name=$1
  echo "  command: shardc ${*:2}"
  echo "  status:  $LAST_STATUS"
  echo "  stderr:"
  sed 's/^/    | /' "$TMP/$name.err" | head -40
}

# run_shardc NAME ARGS...: runs shardc, keeps stdout/stderr in $TMP/NAME.{out,err}.
run_shardc() {
  local name=$1
  shift
  timeout "$SHARDC_TIMEOUT_S" "$SHARDC" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
  LAST_STATUS=$?
}

# no_crash NAME: 0 if the last run neither crashed nor hung.
no_crash() {
  local name=$1 ok=0
  if [[ $LAST_STATUS -eq 124 ]]; then
    fail "$name" "timed out after ${SHARDC_TIMEOUT_S}s (hang?)"
    ok=1
  elif [[ $LAST_STATUS -ge 128 ]]; then
    fail "$name" "killed by signal $((LAST_STATUS - 128)) (crash)"
    ok=1
  fi
  local pattern
  for pattern in "Stack dump" "LLVM ERROR" "PLEASE submit a bug report" "Assertion" \
                 "terminate called" "Segmentation fault"; do
    if grep -qF -- "$pattern" "$TMP/$name.err" "$TMP/$name.out"; then
      fail "$name" "crashed: output contains '$pattern'"
      ok=1
    fi
  done
  return $ok
}

expect_error() {
  local name=$1 codes=$2
  shift 2
  local -a keys=()
  while [[ $# -gt 0 && $1 != "--" ]]; do
    keys+=("$1")
    shift
  done
  shift # --
  CASES=$((CASES + 1))
  run_shardc "$name" "$@"
  local before=$FAILED
  no_crash "$name"
  if [[ $LAST_STATUS -eq 0 ]]; then
    fail "$name" "exit status 0, expected $codes"
  elif [[ "|$codes|" != *"|$LAST_STATUS|"* ]]; then
    fail "$name" "exit status $LAST_STATUS, expected $codes"
  fi
  local k
  for k in "${keys[@]}"; do
    if [[ $k == '!'* ]]; then
      if grep -qF -- "${k:1}" "$TMP/$name.err"; then
        fail "$name" "stderr should not contain '${k:1}'"
      fi
    elif ! grep -qF -- "$k" "$TMP/$name.err"; then
      fail "$name" "stderr does not mention '$k'"
    fi
  done
  if [[ $FAILED -ne $before ]]; then
    show "$name" "$@"
  else
    echo "ok   $name (status $LAST_STATUS)"
  fi
}

expect_ok() {
  local name=$1
  shift
  shift # --
  CASES=$((CASES + 1))
  run_shardc "$name" "$@"
  local before=$FAILED
  no_crash "$name"
  if [[ $LAST_STATUS -ne 0 ]]; then
    fail "$name" "exit status $LAST_STATUS, expected 0"
  fi
  if [[ $FAILED -ne $before ]]; then
    show "$name" "$@"
    return 1
  fi
  echo "ok   $name"
  return 0
}

# check NAME CONDITION-DESCRIPTION COMMAND...: a further assertion on a case.
check() {
  local name=$1 what=$2
  shift 2
  if ! "$@"; then
    fail "$name" "$what"
    return 1
  fi
  return 0
}

# contains FILE STRING / not_contains FILE STRING / count_of FILE STRING
contains() { grep -qF -- "$2" "$1"; }
not_contains() { ! grep -qF -- "$2" "$1"; }
count_of() { grep -oF -- "$2" "$1" | wc -l | tr -d ' '; }

finish() {
  echo
  echo "$CASES cases, $FAILED failed assertions"
  if [[ $FAILED -ne 0 ]]; then
    printf '  failed: %s\n' "${FAILED_NAMES[@]}" | awk '!seen[$0]++'
    exit 1
  fi
  exit 0
}
