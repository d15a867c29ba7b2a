// RUN: shardc-opt %s -split-input-file -verify-diagnostics
//
// garray verifier errors carry their constraint label and name what is
// wrong.

// A value whose type is not the result type is reported as constant_c1 ("the
// value ... whose type is the result type"), not by the AllTypesMatch trait,
// whose message has no label ("failed to verify that all of {value, result}
// have same type").
func.func @constant_c1_type() -> tensor<2xf32> {
  // expected-error @+1 {{constant_c1}}
  %0 = "garray.constant"() {value = dense<1.0> : tensor<3xf32>} : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// An axis repeated inside unreduced = ... is reported as listed twice, not as
// "is unreduced and also used elsewhere in the sharding", which would send
// the reader looking at the dims.
garray.mesh @mesh ["data" = 2]
// expected-error @+1 {{sharding_c1: mesh axis "data" appears twice}}
func.func @c1_unreduced_twice(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data", "data")>}) {
  return
}
