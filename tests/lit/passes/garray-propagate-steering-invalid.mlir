// RUN: shardc-opt %s -split-input-file --garray-propagate -verify-diagnostics
//
// Errors of the steering features of garray-propagate (docs/propagation.md).

garray.mesh @mesh ["data" = 2]

// expected-error @+1 {{expected a priority such as p0 or p1 after a dimension entry, not 'q0'}}
func.func @bad_priority(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data" q0)>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

func.func @group_shapes(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>, garray.sharding_group = 0 : i64},
                        // expected-note @-1 {{first member of the group}}
                        // expected-error @+1 {{sharding group 0 ties values of types 'tensor<8xf32>' and 'tensor<4xf32>'; its members must have one shape}}
                        %y: tensor<4xf32> {garray.sharding_group = 0 : i64}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// expected-error @+1 {{garray.sharding_group must be an integer on a tensor argument or tensor result}}
func.func @group_not_int(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>, garray.sharding_group = "a"}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}
