#!/bin/sh
# Propagation + partitioning benchmark: shardc-opt against upstream MLIR's
# `shard` dialect (mlir-opt --sharding-propagation --shard-partition) on the
# same programs, written by gen.cc in both forms. Prints, per kind and size,
# wall time and peak RSS of each side and their ratios (baseline = upstream,
# measured in the same run), and shardc's own scaling from the smallest size
# to the largest.
#
#   bench/propagation/run.sh                  # kinds "ew mm", sizes 10000 50000 100000
#   KINDS="ew mm mlp" SIZES="10000 100000" TIMEOUT=120 bench/propagation/run.sh
#
# Both sides stop at local types: shardc runs decompose, propagate,
# insert-reshards, reshard-to-collectives and global-to-local (upstream's
# shard-partition also rewrites to local shapes). Both verify after each pass
# (the default of both drivers). A run over TIMEOUT seconds prints "timeout".
set -eu
cd "$(dirname "$0")/../.."
KINDS=${KINDS:-"ew mm"}
SIZES=${SIZES:-"10000 50000 100000"}
TIMEOUT=${TIMEOUT:-120}
MLIR_OPT=${MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt}
# shardc-opt is built -c opt (the system libMLIR that mlir-opt uses is a release build).
SHARDC_FLAGS="--garray-decompose --garray-propagate --garray-insert-reshards --garray-reshard-to-collectives --garray-global-to-local"
UPSTREAM_PIPELINE='builtin.module(func.func(sharding-propagation,shard-partition))'

bazel build -c opt //compiler/tools:shardc-opt //bench/propagation:gen >/dev/null 2>&1 ||
  bazel build -c opt //compiler/tools:shardc-opt //bench/propagation:gen
SHARDC=bazel-bin/compiler/tools/shardc-opt
GEN=bazel-bin/bench/propagation/gen
WORK=$(mktemp -d "${TMPDIR:-/tmp}/propbench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# measure OUTVAR CMD... : sets "$secs $kib", or "timeout"/"failed(rc)".
measure() {
  rc=0
  timeout "$TIMEOUT" /usr/bin/time -f "%e %M" -o "$WORK/time" "$@" -o /dev/null \
    >"$WORK/log" 2>&1 || rc=$?
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then echo "timeout"; return; fi
  if [ "$rc" -ne 0 ]; then echo "failed($rc)"; return; fi
  tail -n 1 "$WORK/time"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0) printf "%.1f", a / b; else printf "inf" }'; }

echo "# propagation+partitioning: shardc-opt vs upstream mlir-opt (baseline), timeout ${TIMEOUT}s"
echo "# host: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%dT%H:%MZ)"
printf "%-4s %7s | %9s %9s | %9s %9s | %9s %9s\n" kind ops shardc_s shardc_MB upstrm_s upstrm_MB time_x mem_x
for kind in $KINDS; do
  first=""; last=""
  for n in $SIZES; do
    "$GEN" "$kind" "$n" "$WORK"
    s=$(measure "$SHARDC" $SHARDC_FLAGS "$WORK/${kind}_$n.garray.mlir")
    if [ "$s" = "${s#failed}" ] && [ "$s" != timeout ]; then :; else
      echo "shardc $kind $n: $s"; tail -n 5 "$WORK/log"; fi
    u=$(measure "$MLIR_OPT" --pass-pipeline="$UPSTREAM_PIPELINE" "$WORK/${kind}_$n.upstream.mlir")
    st=${s% *}; sm=${s#* }; ut=${u% *}; um=${u#* }
    case "$s" in *" "*) smb=$((sm / 1024)) ;; *) st=$s; smb=- ;; esac
    case "$u" in *" "*) umb=$((um / 1024)) ;; *) ut=$u; umb=- ;; esac
    tx=-; mx=-
    case "$s$u" in *timeout*|*failed*) ;; *) tx="$(ratio "$ut" "$st")x"; mx="$(ratio "$um" "$sm")x" ;; esac
    case "$u" in timeout) tx=">$(ratio "$TIMEOUT" "$st")x" ;; esac
    printf "%-4s %7s | %9s %9s | %9s %9s | %9s %9s\n" "$kind" "$n" "$st" "$smb" "$ut" "$umb" "$tx" "$mx"
    [ -z "$first" ] && first=$st
    last=$st
    rm -f "$WORK/${kind}_$n".*.mlir
  done
  echo "# $kind: shardc time at largest/smallest size = $(ratio "$last" "$first")x (sizes: $SIZES)"
done
