//===- GArrayOps.td - garray operations --------------------*- tablegen -*-===//
//
// Every op documents its constraints with labels (`dot_general_c1`); the
// verifier's messages and the negative lit tests use the same labels.
//
//===----------------------------------------------------------------------===//
#ifndef GARRAY_OPS_TD
#define GARRAY_OPS_TD

include "dialects/garray/GArrayAttrs.td"
include "dialects/garray/GArrayInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/OpBase.td"

class GArray_Op<string mnemonic, list<Trait> traits = []> :
    Op<GArray_Dialect, mnemonic, traits>;

// garray arrays have static shapes: local shapes are derived from them.
def GArray_Tensor : StaticShapeTensorOf<[AnyFloat, AnySignlessInteger]>;

//===----------------------------------------------------------------------===//
// Mesh
//===----------------------------------------------------------------------===//

def GArray_MeshOp : GArray_Op<"mesh", [Symbol]> {
  let summary = "A named device mesh";
  let description = [{
    ```mlir
    garray.mesh @mesh ["data" = 4]
    garray.mesh @mesh2d ["data" = 2, "model" = ?]   // size given by --mesh
    ```
    Devices are numbered row-major over the axes in order. Sizes written in
    the file are defaults; `shardc --mesh data=8` overrides them, so one
    model compiles for any device count.

    **Constraints:**
    - `mesh_c1`: at least one axis;
    - `mesh_c2`: axis names are unique and non-empty;
    - `mesh_c3`: every size is positive or `?`.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrArrayAttr:$axes, DenseI64ArrayAttr:$sizes);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Index of axis `name`, or -1.
    int axisIndex(::llvm::StringRef name);
    bool isFullySized();
  }];
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def GArray_ConstantOp : GArray_Op<"constant", [ConstantLike, Pure, AllTypesMatch<["value", "result"]>,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "A constant global array";
  let description = [{
    ```mlir
    %c = garray.constant dense<0.125> : tensor<f32>
    ```
    **Constraints:**
    - `constant_c1`: the value is a dense elements attribute whose type is
      the result type.
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// `flow` names how pending partials pass through (see FactorRule.h).
class GArray_UnaryOp<string mnemonic, string flowDoc> : GArray_Op<mnemonic,
    [Pure, SameOperandsAndResultType,
     DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "elementwise " # mnemonic;
  let description = "Elementwise `" # mnemonic # "`. Pending partial values: " # flowDoc # ".";
  let arguments = (ins GArray_Tensor:$operand);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
}

def GArray_NegOp : GArray_UnaryOp<"neg", "stay pending (linear)">;
def GArray_AbsOp : GArray_UnaryOp<"abs", "reduced first">;
def GArray_ExpOp : GArray_UnaryOp<"exp", "reduced first">;
def GArray_LogOp : GArray_UnaryOp<"log", "reduced first">;
def GArray_SqrtOp : GArray_UnaryOp<"sqrt", "reduced first">;
def GArray_TanhOp : GArray_UnaryOp<"tanh", "reduced first">;

class GArray_BinaryOp<string mnemonic, string flowDoc> : GArray_Op<mnemonic,
    [Pure, SameOperandsAndResultType,
     DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "elementwise " # mnemonic;
  let description = "Elementwise `" # mnemonic # "` of two arrays of one type "
    # "(use `broadcast_in_dim` first to combine different shapes). Pending "
    # "partial values: " # flowDoc # ".";
  let arguments = (ins GArray_Tensor:$lhs, GArray_Tensor:$rhs);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

def GArray_AddOp : GArray_BinaryOp<"add", "stay pending when both are pending sums over the same axes">;
def GArray_SubOp : GArray_BinaryOp<"sub", "stay pending when both are pending sums over the same axes">;
def GArray_MulOp : GArray_BinaryOp<"mul", "one pending sum times a reduced value stays pending">;
def GArray_DivOp : GArray_BinaryOp<"div", "a pending sum divided by a reduced value stays pending">;
def GArray_MaxOp : GArray_BinaryOp<"max", "stay pending when both are pending maxima over the same axes">;
def GArray_MinOp : GArray_BinaryOp<"min", "stay pending when both are pending minima over the same axes">;

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

def GArray_BroadcastInDimOp : GArray_Op<"broadcast_in_dim", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Broadcast into a larger shape";
  let description = [{
    Operand dimension `i` becomes result dimension `dims[i]`; a size-1
    operand dimension stretches to the result's size.

    ```mlir
    %b = garray.broadcast_in_dim %w, dims = [1] : (tensor<2xf32>) -> tensor<8x2xf32>
    ```
    **Constraints:**
    - `broadcast_in_dim_c1`: one entry in `dims` per operand dimension;
    - `broadcast_in_dim_c2`: `dims` are in range and strictly increasing;
    - `broadcast_in_dim_c3`: each operand dimension has size 1 or the size of
      the result dimension it maps to;
    - `broadcast_in_dim_c4`: operand and result element types are equal.
  }];
  let arguments = (ins GArray_Tensor:$operand, DenseI64ArrayAttr:$dims);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = "$operand `,` `dims` `=` $dims attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Contractions and reductions
//===----------------------------------------------------------------------===//

def GArray_DotGeneralOp : GArray_Op<"dot_general", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Generalised matrix product";
  let description = [{
    Contracts `lhs_contracting` of `lhs` with `rhs_contracting` of `rhs`,
    batching over `lhs_batch`/`rhs_batch`. Result dimensions: batch dims, then
    the remaining lhs dims, then the remaining rhs dims, each in order.

    ```mlir
    %p = garray.dot_general %X, %w, batch = [] x [], contracting = [1] x [0]
           : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8xf32>
    ```
    Factor rule: `([i,k],[k])->([i]) sum={k}`; a sharded contracting
    dimension leaves a pending sum.

    **Constraints:**
    - `dot_general_c1`: batch lists have equal length, as do contracting lists;
    - `dot_general_c2`: every listed dimension is in range and listed once;
    - `dot_general_c3`: paired batch and contracting dimensions have equal sizes;
    - `dot_general_c4`: the result shape is batch ++ lhs free ++ rhs free;
    - `dot_general_c5`: operand and result element types are equal.
  }];
  let arguments = (ins GArray_Tensor:$lhs, GArray_Tensor:$rhs,
                       DenseI64ArrayAttr:$lhs_batch, DenseI64ArrayAttr:$rhs_batch,
                       DenseI64ArrayAttr:$lhs_contracting, DenseI64ArrayAttr:$rhs_contracting);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` `batch` `=` $lhs_batch `x` $rhs_batch `,`
    `contracting` `=` $lhs_contracting `x` $rhs_contracting attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def GArray_ReduceOp : GArray_Op<"reduce", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Reduce over a set of dimensions";
  let description = [{
    ```mlir
    %s = garray.reduce <sum> %x, dims = [0] : (tensor<8x2xf32>) -> tensor<2xf32>
    %m = garray.reduce <max> %x, dims = [1] keepdims : (tensor<8x2xf32>) -> tensor<8x1xf32>
    ```
    Reducing a sharded dimension leaves a pending partial (`unreduced =
    sum(...)`), combined by one collective where a consumer needs the value.

    **Constraints:**
    - `reduce_c1`: `dims` is non-empty, in range and has no repeats;
    - `reduce_c2`: the result shape is the operand's without `dims` (or
      with them as 1 under `keepdims`);
    - `reduce_c3`: operand and result element types are equal.
  }];
  let arguments = (ins GArray_ReductionKindAttr:$kind, GArray_Tensor:$operand,
                       DenseI64ArrayAttr:$dims, UnitAttr:$keepdims);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = [{
    $kind $operand `,` `dims` `=` $dims (`keepdims` $keepdims^)? attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def GArray_MeanOp : GArray_Op<"mean", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Mean over a set of dimensions, by the global count";
  let description = [{
    The mean the global program defines: the sum over `dims` divided by the
    *global* number of elements reduced (the product of those dims' global
    sizes), never an average of per-device means.

    ```mlir
    %m = garray.mean %sq, dims = [0] : (tensor<8xf32>) -> tensor<f32>
    ```
    `garray-decompose` rewrites it, before propagation, into
    `reduce <sum>` and a division by the count as an explicit constant
    (`dense<8.0>`), so the denominator is visible in every later IR.

    **Constraints:** as `reduce` (`mean_c1`..`mean_c3`), and
    - `mean_c4`: the element type is a float.
  }];
  let arguments = (ins GArray_Tensor:$operand, DenseI64ArrayAttr:$dims, UnitAttr:$keepdims);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` $dims (`keepdims` $keepdims^)? attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The global number of elements each result element averages.
    int64_t getGlobalCount();
  }];
}

//===----------------------------------------------------------------------===//
// Placement
//===----------------------------------------------------------------------===//

def GArray_ShardingConstraintOp : GArray_Op<"sharding_constraint",
    [Pure, SameOperandsAndResultType]> {
  let summary = "Pin a value's sharding (a hard constraint)";
  let description = [{
    ```mlir
    %h2 = garray.sharding_constraint %h to #garray.sharding<@mesh, P("data", "model")> : tensor<8x16xf32>
    ```
    Propagation never changes the result's sharding; a mismatch with the
    operand becomes a reshard.

    **Constraints:**
    - `sharding_constraint_c1`: the sharding is valid for the value (see
      `#garray.sharding`) and names a `garray.mesh` in scope.
  }];
  let arguments = (ins GArray_Tensor:$operand, GArray_ShardingAttr:$sharding);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = "$operand `to` $sharding attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def GArray_ReshardOp : GArray_Op<"reshard", [Pure, SameOperandsAndResultType]> {
  let summary = "Change a value's sharding (inserted by shardc)";
  let description = [{
    Identity on the global value; its result has `sharding`. Inserted by
    `garray-insert-reshards` where an op's factor rule needs a different
    layout, and turned into collectives by `garray-reshard-to-collectives`.

    **Constraints:**
    - `reshard_c1`: the sharding is valid for the value.
  }];
  let arguments = (ins GArray_Tensor:$operand, GArray_ShardingAttr:$sharding);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = "$operand `to` $sharding attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Global collectives: identities on global values that change their layout.
//===----------------------------------------------------------------------===//

class GArray_CollectiveOp<string mnemonic> : GArray_Op<mnemonic,
    [Pure, SameOperandsAndResultType]> {
  let results = (outs GArray_Tensor:$result);
  let hasVerifier = 1;
}

def GArray_AllReduceOp : GArray_CollectiveOp<"all_reduce"> {
  let summary = "Combine pending partials over mesh axes";
  let description = [{
    ```mlir
    %g = garray.all_reduce <sum> %p on @mesh ["data"] : tensor<2xf32>
    ```
    **Constraints:**
    - `all_reduce_c1`: `axes` is non-empty, has no repeats and names axes
      of `mesh`;
    - `all_reduce_c2`: when the operand has a sharding, it is pending over
      every axis in `axes` with reduction `kind`.
  }];
  let arguments = (ins GArray_ReductionKindAttr:$kind, GArray_Tensor:$operand,
                       FlatSymbolRefAttr:$mesh, StrArrayAttr:$axes);
  let assemblyFormat = "$kind $operand `on` $mesh $axes attr-dict `:` type($result)";
}

def GArray_AllGatherOp : GArray_CollectiveOp<"all_gather"> {
  let summary = "Concatenate the shards of one dimension over mesh axes";
  let description = [{
    ```mlir
    %r = garray.all_gather %x, dim = 0 on @mesh ["data"] : tensor<8x2xf32>
    ```
    **Constraints:**
    - `all_gather_c1`: `axes` is non-empty, has no repeats and names axes of
      `mesh`; `dim` is in range;
    - `all_gather_c2`: when the operand has a sharding, `axes` are the
      trailing (minor) axes of dimension `dim`.
  }];
  let arguments = (ins GArray_Tensor:$operand, I64Attr:$dim, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes);
  let assemblyFormat = "$operand `,` `dim` `=` $dim `on` $mesh $axes attr-dict `:` type($result)";
}

def GArray_AllSliceOp : GArray_CollectiveOp<"all_slice"> {
  let summary = "Keep this device's part of one dimension (no communication)";
  let description = [{
    ```mlir
    %s = garray.all_slice %x, dim = 0 on @mesh ["data"] : tensor<8x2xf32>
    ```
    **Constraints:**
    - `all_slice_c1`: `axes` is non-empty, has no repeats and names axes of
      `mesh`; `dim` is in range;
    - `all_slice_c2`: when the operand has a sharding, no axis in `axes` is
      already used by it.
  }];
  let arguments = (ins GArray_Tensor:$operand, I64Attr:$dim, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes);
  let assemblyFormat = "$operand `,` `dim` `=` $dim `on` $mesh $axes attr-dict `:` type($result)";
}

#endif // GARRAY_OPS_TD
