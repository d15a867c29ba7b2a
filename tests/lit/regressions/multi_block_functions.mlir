// RUN: shardc-opt %s --garray-propagate | FileCheck %s --check-prefix=PROP
// RUN: shardc-opt %s --shardc-propagation-phase --shardc-partition-phase \
// RUN:   --shardc-local-phase | FileCheck %s --check-prefix=LOCAL
//
// garray-propagate and garray-global-to-local on a function whose last
// block does not end in func.return (valid IR): every func.return is
// handled, wherever it is, rather than taking the last block's terminator as
// the return.

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
