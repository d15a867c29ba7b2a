# Inputs and steps of the standalone-executable cases (cases.bzl), shared by
# exe_test.sh and the GPU bundle's generator. Source it, then:
#   make_inputs NPY_TOOL GEN_DIR    writes the generated inputs once
#   case_args NAME SAMPLES GEN_DIR  prints the case's --in and --steps args
make_inputs() {
  local npy=$1 gen=$2 i vals
  mkdir -p "$gen"
  vals=$(for i in $(seq 0 127); do echo "$(( (i * 37) % 23 - 11 )).25"; done)
  "$npy" write "$gen/x8x16.npy" f32 8,16 $vals >/dev/null &&
  "$npy" write "$gen/u16x8.npy" f32 16,8 $vals >/dev/null &&
  "$npy" write "$gen/gamma.npy" f32 16 $(seq 1 16) >/dev/null &&
  "$npy" write "$gen/beta.npy" f32 16 $(seq -8 7) >/dev/null
}

case_args() {
  local name=$1 s=$2 gen=$3
  local lr="--in X=$s/linear_regression/X.npy --in y=$s/linear_regression/y.npy"
  local mlp="--in X=$s/mlp/X.npy --in W1=$s/mlp/W1.npy --in b1=$s/mlp/b1.npy"
  mlp+=" --in W2=$s/mlp/W2.npy --in b2=$s/mlp/b2.npy --in labels=$s/mlp/labels.npy"
  case $name in
    linear_regression_step) echo "$lr --in w=$s/linear_regression/w.npy" ;;
    masked_regression)
      echo "$lr --in w=$s/linear_regression/w.npy --in mask=$s/masked_regression/mask.npy" ;;
    mlp | mlp_1rank | mlp_uneven) echo "$mlp" ;;
    mlp_train)
      local k opt=""
      for k in W1 b1 W2 b2; do
        opt+=" --in mu_$k=$s/mlp_train/mu_$k.npy --in nu_$k=$s/mlp_train/nu_$k.npy"
      done
      echo "$mlp$opt --in t=$s/mlp_train/t.npy --steps 3" ;;
    attention)
      echo "--in X=$s/attention/X.npy --in Wq=$s/attention/Wq.npy --in Wk=$s/attention/Wk.npy" \
        "--in Wv=$s/attention/Wv.npy --in Wo=$s/attention/Wo.npy" ;;
    layer_norm) echo "--in x=$gen/x8x16.npy --in gamma=$gen/gamma.npy --in beta=$gen/beta.npy" ;;
    heat_stencil) echo "--in u=$gen/u16x8.npy" ;;
    ring_allreduce) echo "--in x=$gen/x8x16.npy" ;;
    *) echo "unknown case $name" >&2; return 1 ;;
  esac
}
