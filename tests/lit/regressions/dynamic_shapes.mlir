// RUN: shardc-opt %s -split-input-file --garray-propagate -verify-diagnostics
//
// garray ops require static shapes, but a function argument may be dynamic
// and carry a sharding. A sharded dynamic dim is a sharding_c4 error that
// says the dim is dynamic (naming the argument), on any device count: taken
// as a number, ShapedType::kDynamic would pass `n % parts` over 2 devices
// (it is even) and give a negative local size, and over 3 devices print
// "dim 0 has size -9223372036854775808".

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
