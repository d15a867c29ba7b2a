// RUN: shardc-opt %s --garray-propagate | FileCheck %s --check-prefix=PROP
// RUN: shardc-opt %s --garray-propagate --garray-insert-reshards --garray-reshard-to-collectives \
// RUN:   --garray-global-to-local | FileCheck %s --check-prefix=LOCAL
//
// FIXED: garray-propagate and garray-global-to-local take
// `cast<func::ReturnOp>(func.getBody().back().getTerminator())`; a function
// whose last block does not end in func.return (valid IR) crashes both with
// an assertion in llvm::cast and a stack dump. Expected: every func.return is
// handled (or, at least, a clean error that multi-block functions are not
// supported). This test encodes support.

garray.mesh @mesh ["data" = 2]

// PROP-LABEL: func.func @last_block_branches
// PROP-SAME: -> (tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>})
// LOCAL-LABEL: func.func @last_block_branches
// LOCAL-SAME: (%{{[^:]+}}: tensor<4xf32>) -> tensor<4xf32>
func.func @last_block_branches(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<8xf32> {
  cf.br ^bb2
^bb1:
  return %x : tensor<8xf32>
^bb2:
  cf.br ^bb1
}
