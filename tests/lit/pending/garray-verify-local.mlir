// RUN: shardc-opt %s -split-input-file --garray-verify-local -verify-diagnostics
//
// PENDING (bug): garray-verify-local checks shardings on ops and on function
// arguments but not on function results, so a result sharding survives the
// local-program gate unnoticed. Expected: an error, like the one for arguments.

// expected-error @+1 {{verify-local: result #0 still has a sharding}}
func.func @result_sharding(%x: tensor<2xf32>) -> (tensor<2xf32> {garray.sharding = #garray.sharding<@mesh, P()>}) {
  return %x : tensor<2xf32>
}
