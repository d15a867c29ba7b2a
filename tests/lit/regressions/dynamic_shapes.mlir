// RUN: shardc-opt %s -split-input-file --garray-propagate -verify-diagnostics
//
// FIXED: garray ops now require static shapes, but a function
// argument is still free to be dynamic and sharded. verifyShardingFor computes
// `n % parts` with n = ShapedType::kDynamic: over 2 devices the check passes
// (kDynamic is even), and garray-global-to-local then gives the argument the
// type tensor<-4611686018427387904xf32>, silently; over 3 devices the error
// reads "dim 0 has size -9223372036854775808 ... shards would be
// -3074457345618258602". Expected: a sharding_c4 error that says the dim is
// dynamic (naming the argument).

garray.mesh @mesh ["data" = 2]
// expected-error @+1 {{dynamic}}
func.func @dynamic_argument(%x: tensor<?xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

// -----

garray.mesh @mesh ["data" = 3]
// expected-error @+1 {{dynamic}}
func.func @dynamic_argument_3(%x: tensor<?xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}
