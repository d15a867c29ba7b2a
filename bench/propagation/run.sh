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
#   REPEAT=1 bench/propagation/run.sh         # one run per measurement (faster, noisier)
#
# Each measurement below is the minimum over REPEAT runs (default 3) of the
# same command, on both sides alike: the machines are shared, and the
# minimum is the run least disturbed by other work. The runs of the two
# sides alternate (one of each measurement per round), so that a slow
# minute of the machine slows both.
#
# Three measurements per side, from separate runs of the same input:
#   whole-process (wall_s, MB): the wall clock (ns) and /usr/bin/time (peak RSS) around the process, i.e. parse +
#     passes + verifier after each pass + print to /dev/null;
#   pass-only (shardc_pass, upstrm_pass, pass_x): a second run with --mlir-timing
#     --mlir-timing-display=list, summing the wall time of the sharding passes
#     only (shardc: the six garray passes; upstream: sharding-propagation +
#     shard-partition), without Parser, Output or pass-manager overhead. The
#     MLIR verifier that runs after each pass is inside its pass's time (both
#     drivers verify after every pass that changed the IR);
#   pass bodies (shardc_body, upstrm_body, body_x): the same sum from a third
#     run with --verify-each=false on both sides, i.e. the passes' own work.
#     both sides verify twice on these programs (shardc after propagate and
#     global-to-local, the passes that change them; upstream after each of
#     its two), but the verifier is a larger share of shardc's smaller time;
#   pair_x: the median over the REPEAT rounds of the pass-only ratio of one
#     round (upstream's run / shardc's run, back to back).
# SHARDC=path times an already built shardc-opt (e.g. an older binary)
# instead of the one built here (the generator is built either way).
# INPUT=bytecode gives both sides their program as MLIR bytecode (each
# converted by its own tool first) instead of text. The textual parser
# holds memory per value while it parses (freed afterwards) between the ops
# it allocates: on `ew`, consecutive ops lie 272 bytes apart when read from
# text and 176 bytes (their size) when read from bytecode. At 100k ops the
# spread IR no longer fits in cache, and every walk over it (the verifier
# makes several) costs more.
#
# Both sides stop at local types: shardc runs decompose, recognize-shifts
# (as compiler/pipeline/Pipeline.cpp does), propagate,
# insert-reshards, reshard-to-collectives and global-to-local (upstream's
# shard-partition also rewrites to local shapes). Both verify after each pass
# (the default of both drivers). A run over TIMEOUT seconds prints "timeout".
set -eu
cd "$(dirname "$0")/../.."
KINDS=${KINDS:-"ew mm"}
SIZES=${SIZES:-"10000 50000 100000"}
TIMEOUT=${TIMEOUT:-120}
REPEAT=${REPEAT:-3}
INPUT=${INPUT:-text}
MLIR_OPT=${MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt}
# shardc-opt is built -c opt (the system libMLIR that mlir-opt uses is a release build).
SHARDC_FLAGS="--garray-decompose --garray-recognize-shifts --garray-propagate --garray-insert-reshards --garray-reshard-to-collectives --garray-global-to-local"
UPSTREAM_PIPELINE='builtin.module(func.func(sharding-propagation,shard-partition))'
# --mlir-timing list names of the passes summed for pass_s.
SHARDC_PASSES='^GArray(Decompose|RecognizeShifts|Propagate|InsertReshards|ReshardToCollectives|GlobalToLocal)$'
UPSTREAM_PASSES='^(ShardingPropagation|Partition)$'

bazel build -c opt //compiler/tools:shardc-opt //bench/propagation:gen >/dev/null 2>&1 ||
  bazel build -c opt //compiler/tools:shardc-opt //bench/propagation:gen
# The Bazel server stays busy for a while after a build; on two cores it
# would slow the first (smallest) measurements and flatter the scaling.
bazel shutdown
SHARDC=${SHARDC:-bazel-bin/compiler/tools/shardc-opt}
GEN=bazel-bin/bench/propagation/gen
WORK=$(mktemp -d "${TMPDIR:-/tmp}/propbench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# once CMD... : "$secs $kib" of one run (wall time and peak RSS), or
# "timeout"/"failed(rc)".
once() {
  rc=0
  # Wall time from the clock in nanoseconds (/usr/bin/time's %e has 10 ms
  # steps, an eighth of a 10k-op run) less the wrappers' own start-up
  # (WRAP_NS, measured below), peak RSS from /usr/bin/time.
  start=$(date +%s%N)
  timeout "$TIMEOUT" /usr/bin/time -f "%M" -o "$WORK/time" "$@" -o /dev/null \
    >"$WORK/log" 2>&1 || rc=$?
  end=$(date +%s%N)
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then echo "timeout"; return; fi
  if [ "$rc" -ne 0 ]; then echo "failed($rc)"; return; fi
  echo "$(awk -v a="$start" -v b="$end" -v w="$WRAP_NS" 'BEGIN { printf "%.3f", (b - a - w) / 1e9 }') $(tail -n 1 "$WORK/time")"
}

# passonce REGEX CMD... : the sum of wall seconds of the --mlir-timing list
# entries whose name matches REGEX (e.g. "GArray") in one run, or
# "timeout"/"failed(rc)"/"none".
passonce() {
  re=$1; shift
  rc=0
  timeout "$TIMEOUT" "$@" --mlir-timing --mlir-timing-display=list -o /dev/null \
    >"$WORK/tlog" 2>&1 || rc=$?
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then echo "timeout"; return; fi
  if [ "$rc" -ne 0 ]; then echo "failed($rc)"; return; fi
  # List lines: "  [user (pct%)]  wall (pct%)  Name"; the wall time is the
  # number before the last "(pct%)", the name what follows it.
  awk -v re="$re" '/%\)/ {
      n = split($0, p, "%\\)"); name = p[n]; sub(/^ +/, "", name); sub(/ +$/, "", name)
      if (name !~ re) next
      split(p[n - 1], q, " "); t += q[1]; found = 1
    } END { if (found) printf "%.4f", t; else printf "none" }' "$WORK/tlog"
}

# ok RESULT : whether a measurement may run again (no timeout or failure yet).
ok() { case "$1" in timeout|failed*|none) return 1 ;; esac; return 0; }

# least OLD NEW : the run with less time of two ("$secs ..." results; a
# failure or timeout sticks).
least() {
  case "$1" in "") echo "$2"; return ;; timeout|failed*|none) echo "$1"; return ;; esac
  case "$2" in timeout|failed*|none) echo "$2"; return ;; esac
  echo "$1|$2" | awk -F'|' '{ split($1, a, " "); split($2, b, " "); if (b[1] + 0 < a[1] + 0) print $2; else print $1 }'
}

# What timeout + /usr/bin/time around a process that does nothing cost
# (fork and exec of both), the least of five: measure() subtracts it.
WRAP_NS=""
for _ in 1 2 3 4 5; do
  start=$(date +%s%N)
  timeout "$TIMEOUT" /usr/bin/time -f "%M" -o "$WORK/time" true
  end=$(date +%s%N)
  w=$((end - start))
  if [ -z "$WRAP_NS" ] || [ "$w" -lt "$WRAP_NS" ]; then WRAP_NS=$w; fi
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0) printf "%.1f", a / b; else printf "inf" }'; }

echo "# propagation+partitioning: shardc-opt vs upstream mlir-opt (baseline), timeout ${TIMEOUT}s, input $INPUT"
# Other tenants' load moves shardc's figures more than upstream's (at 100k
# ops shardc's time is mostly memory traffic, and the last-level cache is
# shared; bench/README.md): the run says what the load was (the figures
# count this script's own build and processes too).
echo "# host: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg); each figure the minimum of $REPEAT runs"
echo "# whole-process: wall_s (clock, less $((WRAP_NS / 1000)) us of timeout + /usr/bin/time start-up), MB (/usr/bin/time peak RSS); pass-only: *_pass, seconds (--mlir-timing, sharding passes only, verifier included); *_body: pass-only with --verify-each=false"
printf "%-4s %7s | %8s %9s %11s %11s | %8s %9s %11s %11s | %7s %7s %7s %7s %7s\n" kind ops shardc_s shardc_MB shardc_pass shardc_body upstrm_s upstrm_MB upstrm_pass upstrm_body time_x pass_x body_x mem_x pair_x
for kind in $KINDS; do
  first=""; last=""
  for n in $SIZES; do
    "$GEN" "$kind" "$n" "$WORK"
    ours="$WORK/${kind}_$n.garray.mlir"; theirs="$WORK/${kind}_$n.upstream.mlir"
    if [ "$INPUT" = bytecode ]; then
      # Each side's own tool writes its program as MLIR bytecode.
      "$SHARDC" --emit-bytecode "$ours" -o "$ours.bc"
      "$MLIR_OPT" --emit-bytecode "$theirs" -o "$theirs.bc"
      ours="$ours.bc"; theirs="$theirs.bc"
    fi
    # The six measurements alternate, REPEAT rounds of one each, so that a
    # slow minute of this shared machine hits both sides alike; each figure
    # is the minimum over the rounds.
    s=""; u=""; sp=""; up=""; sb=""; ub=""; pairs=""
    # A measurement that timed out or failed is not run again.
    for _ in $(seq "$REPEAT"); do
      ok "$s" && s=$(least "$s" "$(once "$SHARDC" $SHARDC_FLAGS "$ours")")
      ok "$u" && u=$(least "$u" "$(once "$MLIR_OPT" --pass-pipeline="$UPSTREAM_PIPELINE" "$theirs")")
      rsp=none; rup=none
      ok "$sp" && rsp=$(passonce "$SHARDC_PASSES" "$SHARDC" $SHARDC_FLAGS "$ours") && sp=$(least "$sp" "$rsp")
      ok "$up" && rup=$(passonce "$UPSTREAM_PASSES" "$MLIR_OPT" --pass-pipeline="$UPSTREAM_PIPELINE" "$theirs") && up=$(least "$up" "$rup")
      case "$rsp$rup" in *timeout*|*failed*|*none*) ;; *) pairs="$pairs $(ratio "$rup" "$rsp")" ;; esac
      ok "$sb" && sb=$(least "$sb" "$(passonce "$SHARDC_PASSES" "$SHARDC" $SHARDC_FLAGS --verify-each=false "$ours")")
      ok "$ub" && ub=$(least "$ub" "$(passonce "$UPSTREAM_PASSES" "$MLIR_OPT" --verify-each=false --pass-pipeline="$UPSTREAM_PIPELINE" "$theirs")")
    done
    case "$s" in timeout|failed*) echo "shardc $kind $n: $s"; tail -n 5 "$WORK/log" ;; esac
    px=-; bx=-; rx=-
    # pair_x: the median over rounds of one round's pass-only ratio (both
    # runs back to back), which a slow stretch of the machine moves less
    # than it moves either minimum.
    [ -n "$pairs" ] && rx="$(echo $pairs | tr ' ' '\n' | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }')x"
    case "$sp$up" in *timeout*|*failed*|*none*) ;; *) px="$(ratio "$up" "$sp")x" ;; esac
    case "$sb$ub" in *timeout*|*failed*|*none*) ;; *) bx="$(ratio "$ub" "$sb")x" ;; esac
    st=${s% *}; sm=${s#* }; ut=${u% *}; um=${u#* }
    case "$s" in *" "*) smb=$((sm / 1024)) ;; *) st=$s; smb=- ;; esac
    case "$u" in *" "*) umb=$((um / 1024)) ;; *) ut=$u; umb=- ;; esac
    tx=-; mx=-
    case "$s$u" in *timeout*|*failed*) ;; *) tx="$(ratio "$ut" "$st")x"; mx="$(ratio "$um" "$sm")x" ;; esac
    case "$u" in timeout) tx=">$(ratio "$TIMEOUT" "$st")x" ;; esac
    printf "%-4s %7s | %8s %9s %11s %11s | %8s %9s %11s %11s | %7s %7s %7s %7s %7s\n" "$kind" "$n" "$st" "$smb" "$sp" "$sb" "$ut" "$umb" "$up" "$ub" "$tx" "$px" "$bx" "$mx" "$rx"
    [ -z "$first" ] && first=$st
    last=$st
    rm -f "$WORK/${kind}_$n".*
  done
  echo "# $kind: shardc time at largest/smallest size = $(ratio "$last" "$first")x (sizes: $SIZES)"
done
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
