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

def GArray_LocalizeOpInterface : OpInterface<"LocalizeOpInterface"> {
  let cppNamespace = "::mlir::garray";
  let description = [{
    An op whose attributes name global extents (a slice's `limit`): when
    garray-global-to-local has given it local operand and result types, it
    rewrites those attributes for the local shapes. Ops whose attributes are
    the same on every device (dims, permutations, zero paddings) need not
    implement it. Why a hook and not a switch in the pass: the pass never
    knows op kinds, and the op alone knows what its attributes mean.
  }];
  let methods = [
    InterfaceMethod<[{
        Called after the op's results were retyped to their local types (its
        operands already are). Fails, with an error on the op, when the local
        types are not a sharding the op's factor rule allows.
      }],
      "::llvm::LogicalResult", "localizeAttributes", (ins)>,
  ];
}

#endif // GARRAY_INTERFACES_TD
