// RUN: shardc-opt %s -split-input-file --garray-propagate -verify-diagnostics
//
// PENDING (bug): a sharded dim of dynamic size. verifyShardingFor computes
// `n % parts` with n = ShapedType::kDynamic: over 2 devices the check passes
// (kDynamic is even) and global-to-local later gives the argument the type
// tensor<-4611686018427387904xf32>, silently; over 3 devices the error reads
// "dim 0 has size -9223372036854775808 ... shards would be
// -3074457345618258602". Expected: a sharding_c4 error that names the dim
// as dynamic (or real support for dynamic dims).

garray.mesh @mesh ["data" = 2]
// expected-error @+1 {{dynamic}}
func.func @dynamic_argument(%x: tensor<?xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

// -----

garray.mesh @mesh ["data" = 3]
func.func @dynamic_constraint(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{dynamic}}
  %0 = garray.sharding_constraint %x to <@mesh, P("data")> : tensor<?xf32>
  return %0 : tensor<?xf32>
}
