# The golden outputs of every sample (sourced, bash): for each model on the
# mesh its README and `garray.mesh` give, what `shardc compile --emit=partitioned`,
# `--emit=local`, `shardc report` and `shardc explain` print. A change that
# alters any of them on purpose regenerates them with tests/golden/update.sh
# and says why in its commit.
#
#   golden_outputs SHARDC DIR   writes every output under DIR/<sample>/
#
# Paths are printed relative to the repository root (samples/x.mlir), so the
# files are the same under `bazel test` and by hand.

GOLDEN_SAMPLES=(
  "linear_regression_step data=4"
  "linear_regression data=4"
  "masked_regression data=2"
  "mlp data=2,model=2"
  "mlp_train data=2,model=2"
  "layer_norm data=2,model=2"
  "attention data=2,model=2"
  "heat_stencil data=4"
)

golden_outputs() {
  local shardc=$1 dir=$2 entry name mesh model
  for entry in "${GOLDEN_SAMPLES[@]}"; do
    read -r name mesh <<<"$entry"
    model="samples/$name.mlir"
    mkdir -p "$dir/$name"
    "$shardc" compile "$model" --mesh "$mesh" --emit=partitioned >"$dir/$name/partitioned.mlir" 2>&1
    echo "exit $?" >>"$dir/$name/partitioned.mlir"
    "$shardc" compile "$model" --mesh "$mesh" --emit=local >"$dir/$name/local.mlir" 2>&1
    echo "exit $?" >>"$dir/$name/local.mlir"
    "$shardc" report "$model" --mesh "$mesh" >"$dir/$name/report.txt" 2>&1
    echo "exit $?" >>"$dir/$name/report.txt"
    # explain: remarks on stderr, the collectives and their causes on stdout.
    "$shardc" explain "$model" --mesh "$mesh" >"$dir/$name/explain.txt" 2>"$dir/$name/explain.remarks.txt"
    echo "exit $?" >>"$dir/$name/explain.txt"
  done
}
