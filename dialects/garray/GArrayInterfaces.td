//===- GArrayInterfaces.td - per-op sharding semantics -----*- tablegen -*-===//
#ifndef GARRAY_INTERFACES_TD
#define GARRAY_INTERFACES_TD

include "mlir/IR/OpBase.td"

def GArray_ShardingRuleOpInterface : OpInterface<"ShardingRuleOpInterface"> {
  let cppNamespace = "::mlir::garray";
  let description = [{
    A compute op's sharding semantics as data: its factor rule, einsum-style
    (see sharding/FactorRule.h). Propagation, reshard insertion and
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

def GArray_VjpOpInterface : OpInterface<"VjpOpInterface"> {
  let cppNamespace = "::mlir::garray";
  let description = [{
    An op's adjoint (vector-Jacobian product), for `garray-autodiff`: given
    the cotangent of each result, build garray ops that compute the
    cotangent each operand receives. The rules are written next to each
    other in VjpRules.cpp (like the factor rules in FactorRules.cpp) and
    attached to the ops as external models, so the op definitions stay as
    they are. Adjoints are plain global garray ops: they are partitioned by
    propagation like any other value (a pending sum stays pending through
    them and is reduced once), never by a hand-written collective.
  }];
  let methods = [
    InterfaceMethod<[{
        Builds, at `b`'s insertion point, the cotangents of this op's
        operands from `resultGrads` (one per result, same types as the
        results; never null). Fills `operandGrads` with one entry per operand:
        a value of the operand's type, or null where the operand receives
        nothing (integer operands, constants of the rule, or a zero
        derivative). Fails, with an error on the op, when the op's
        attributes make it non-differentiable here (e.g. `reduce <prod>`).
      }],
      "::llvm::LogicalResult", "buildVjp",
      (ins "::mlir::OpBuilder &":$b, "::mlir::ValueRange":$resultGrads,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGrads)>,
  ];
}

#endif // GARRAY_INTERFACES_TD
