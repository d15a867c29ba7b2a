// A GPU recipe case of the device bundle: bf16 and f16 contractions on the
// tensor cores whose M, N and K are not multiples of the block tile (128
// or 64 rows, 64 columns, K chunks of 32), in the three operand layouts
// the staging treats differently: NN (both operands read by 16-byte runs
// and stored as runs), TN (A's rows are K: its runs go to the shared tile
// element by element) and NT (B likewise); and with K = 70, whose rows
// are not 16-byte multiples, so every run falls back to element loads.
// At data=2 each rank has 100 rows of A, so the 64-row tiles run too.
// Each operand is made from iota in its own layout (A[m, k] = sin(m s + k),
// B[k, n] = cos(n s - k), transposed ones the same values), so that the
// model needs only a scalar input and no transpose is left to fold.
// MESHES: data=1 data=2
// TOLERANCE: 1e-2 1e-2
garray.mesh @mesh ["data" = 2]
func.func @main(%s: tensor<f32> {garray.name = "s", garray.sharding = #garray.sharding<@mesh, P()>})
    -> (tensor<200x104xf32> {garray.name = "nn"}, tensor<200x104xf32> {garray.name = "tn"},
        tensor<200x104xf32> {garray.name = "nt"}, tensor<200x104xf32> {garray.name = "nn_f16"},
        tensor<200x100xf32> {garray.name = "unaligned"}) {
  %a_i = garray.iota dim = 0 : tensor<200x72xi64>
  %a_j = garray.iota dim = 1 : tensor<200x72xi64>
  %a_fi = garray.convert %a_i lossy : (tensor<200x72xi64>) -> tensor<200x72xf32>
  %a_fj = garray.convert %a_j lossy : (tensor<200x72xi64>) -> tensor<200x72xf32>
  %a_s = garray.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<200x72xf32>
  %a_1 = garray.mul %a_fi, %a_s : tensor<200x72xf32>
  %a_2 = garray.add %a_1, %a_fj : tensor<200x72xf32>
  %a_3 = garray.sin %a_2 : tensor<200x72xf32>
  %a_4 = garray.sharding_constraint %a_3 : tensor<200x72xf32> to #garray.sharding<@mesh, P("data", None)>
  %a = garray.convert %a_4 lossy : (tensor<200x72xf32>) -> tensor<200x72xbf16>
  %at_i = garray.iota dim = 1 : tensor<72x200xi64>
  %at_j = garray.iota dim = 0 : tensor<72x200xi64>
  %at_fi = garray.convert %at_i lossy : (tensor<72x200xi64>) -> tensor<72x200xf32>
  %at_fj = garray.convert %at_j lossy : (tensor<72x200xi64>) -> tensor<72x200xf32>
  %at_s = garray.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<72x200xf32>
  %at_1 = garray.mul %at_fi, %at_s : tensor<72x200xf32>
  %at_2 = garray.add %at_1, %at_fj : tensor<72x200xf32>
  %at_3 = garray.sin %at_2 : tensor<72x200xf32>
  %at = garray.convert %at_3 lossy : (tensor<72x200xf32>) -> tensor<72x200xbf16>
  %b_i = garray.iota dim = 1 : tensor<72x104xi64>
  %b_j = garray.iota dim = 0 : tensor<72x104xi64>
  %b_fi = garray.convert %b_i lossy : (tensor<72x104xi64>) -> tensor<72x104xf32>
  %b_fj = garray.convert %b_j lossy : (tensor<72x104xi64>) -> tensor<72x104xf32>
  %b_s = garray.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<72x104xf32>
  %b_1 = garray.mul %b_fi, %b_s : tensor<72x104xf32>
  %b_2 = garray.sub %b_1, %b_fj : tensor<72x104xf32>
  %b_3 = garray.cos %b_2 : tensor<72x104xf32>
  %b = garray.convert %b_3 lossy : (tensor<72x104xf32>) -> tensor<72x104xbf16>
  %bt_i = garray.iota dim = 0 : tensor<104x72xi64>
  %bt_j = garray.iota dim = 1 : tensor<104x72xi64>
  %bt_fi = garray.convert %bt_i lossy : (tensor<104x72xi64>) -> tensor<104x72xf32>
  %bt_fj = garray.convert %bt_j lossy : (tensor<104x72xi64>) -> tensor<104x72xf32>
  %bt_s = garray.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<104x72xf32>
  %bt_1 = garray.mul %bt_fi, %bt_s : tensor<104x72xf32>
  %bt_2 = garray.sub %bt_1, %bt_fj : tensor<104x72xf32>
  %bt_3 = garray.cos %bt_2 : tensor<104x72xf32>
  %bt = garray.convert %bt_3 lossy : (tensor<104x72xf32>) -> tensor<104x72xbf16>
  %ah_i = garray.iota dim = 0 : tensor<200x72xi64>
  %ah_j = garray.iota dim = 1 : tensor<200x72xi64>
  %ah_fi = garray.convert %ah_i lossy : (tensor<200x72xi64>) -> tensor<200x72xf32>
  %ah_fj = garray.convert %ah_j lossy : (tensor<200x72xi64>) -> tensor<200x72xf32>
  %ah_s = garray.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<200x72xf32>
  %ah_1 = garray.mul %ah_fi, %ah_s : tensor<200x72xf32>
  %ah_2 = garray.add %ah_1, %ah_fj : tensor<200x72xf32>
  %ah_3 = garray.sin %ah_2 : tensor<200x72xf32>
  %ah_4 = garray.sharding_constraint %ah_3 : tensor<200x72xf32> to #garray.sharding<@mesh, P("data", None)>
  %ah = garray.convert %ah_4 lossy : (tensor<200x72xf32>) -> tensor<200x72xf16>
  %bh_i = garray.iota dim = 1 : tensor<72x104xi64>
  %bh_j = garray.iota dim = 0 : tensor<72x104xi64>
  %bh_fi = garray.convert %bh_i lossy : (tensor<72x104xi64>) -> tensor<72x104xf32>
  %bh_fj = garray.convert %bh_j lossy : (tensor<72x104xi64>) -> tensor<72x104xf32>
  %bh_s = garray.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<72x104xf32>
  %bh_1 = garray.mul %bh_fi, %bh_s : tensor<72x104xf32>
  %bh_2 = garray.sub %bh_1, %bh_fj : tensor<72x104xf32>
  %bh_3 = garray.cos %bh_2 : tensor<72x104xf32>
  %bh = garray.convert %bh_3 lossy : (tensor<72x104xf32>) -> tensor<72x104xf16>
  %au_i = garray.iota dim = 0 : tensor<200x70xi64>
  %au_j = garray.iota dim = 1 : tensor<200x70xi64>
  %au_fi = garray.convert %au_i lossy : (tensor<200x70xi64>) -> tensor<200x70xf32>
  %au_fj = garray.convert %au_j lossy : (tensor<200x70xi64>) -> tensor<200x70xf32>
  %au_s = garray.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<200x70xf32>
  %au_1 = garray.mul %au_fi, %au_s : tensor<200x70xf32>
  %au_2 = garray.add %au_1, %au_fj : tensor<200x70xf32>
  %au_3 = garray.sin %au_2 : tensor<200x70xf32>
  %au_4 = garray.sharding_constraint %au_3 : tensor<200x70xf32> to #garray.sharding<@mesh, P("data", None)>
  %au = garray.convert %au_4 lossy : (tensor<200x70xf32>) -> tensor<200x70xbf16>
  %bu_i = garray.iota dim = 1 : tensor<70x100xi64>
  %bu_j = garray.iota dim = 0 : tensor<70x100xi64>
  %bu_fi = garray.convert %bu_i lossy : (tensor<70x100xi64>) -> tensor<70x100xf32>
  %bu_fj = garray.convert %bu_j lossy : (tensor<70x100xi64>) -> tensor<70x100xf32>
  %bu_s = garray.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<70x100xf32>
  %bu_1 = garray.mul %bu_fi, %bu_s : tensor<70x100xf32>
  %bu_2 = garray.sub %bu_1, %bu_fj : tensor<70x100xf32>
  %bu_3 = garray.cos %bu_2 : tensor<70x100xf32>
  %bu = garray.convert %bu_3 lossy : (tensor<70x100xf32>) -> tensor<70x100xbf16>
  // .npy has no bf16: each result leaves as f32 (exactly).
  %nn0 = garray.dot_general %a, %b, batch = [] x [], contracting = [1] x [0]
      : (tensor<200x72xbf16>, tensor<72x104xbf16>) -> tensor<200x104xbf16>
  %nn = garray.convert %nn0 : (tensor<200x104xbf16>) -> tensor<200x104xf32>
  %tn0 = garray.dot_general %at, %b, batch = [] x [], contracting = [0] x [0]
      : (tensor<72x200xbf16>, tensor<72x104xbf16>) -> tensor<200x104xbf16>
  %tn = garray.convert %tn0 : (tensor<200x104xbf16>) -> tensor<200x104xf32>
  %nt0 = garray.dot_general %a, %bt, batch = [] x [], contracting = [1] x [1]
      : (tensor<200x72xbf16>, tensor<104x72xbf16>) -> tensor<200x104xbf16>
  %nt = garray.convert %nt0 : (tensor<200x104xbf16>) -> tensor<200x104xf32>
  %nh0 = garray.dot_general %ah, %bh, batch = [] x [], contracting = [1] x [0]
      : (tensor<200x72xf16>, tensor<72x104xf16>) -> tensor<200x104xf16>
  %nn_f16 = garray.convert %nh0 : (tensor<200x104xf16>) -> tensor<200x104xf32>
  %u0 = garray.dot_general %au, %bu, batch = [] x [], contracting = [1] x [0]
      : (tensor<200x70xbf16>, tensor<70x100xbf16>) -> tensor<200x100xbf16>
  %unaligned = garray.convert %u0 : (tensor<200x100xbf16>) -> tensor<200x100xf32>
  return %nn, %tn, %nt, %nn_f16, %unaligned : tensor<200x104xf32>, tensor<200x104xf32>, tensor<200x104xf32>, tensor<200x104xf32>, tensor<200x100xf32>
}
