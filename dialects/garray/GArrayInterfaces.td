//===- GArrayInterfaces.td - per-op sharding semantics -----*- tablegen -*-===//
#ifndef GARRAY_INTERFACES_TD
#define GARRAY_INTERFACES_TD

include "mlir/IR/OpBase.td"

def GArray_ShardingRuleOpInterface : OpInterface<"ShardingRuleOpInterface"> {
  let cppNamespace = "::mlir::garray";
  let description = [{
    A compute op's sharding semantics as data: its factor rule, einsum-style
    (see passes/core/FactorRule.h). Propagation, reshard insertion and
    global-to-local read only this; an op without it that touches a sharded
    value is a compile error, never a silent local copy. All rules live in
    FactorRules.cpp, in alphabetical order.
  }];
  let methods = [
    InterfaceMethod<"The factor rule of this op at its current shapes.",
      "::shardc::FactorRule", "getFactorRule", (ins)>,
  ];
}

#endif // GARRAY_INTERFACES_TD
