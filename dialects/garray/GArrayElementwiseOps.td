//===- GArrayElementwiseOps.td - elementwise garray ops -*- tablegen -*-===//
//
// Included from GArrayOps.td; shares its GArray_Op / GArray_Tensor classes.
//
//===----------------------------------------------------------------------===//
#ifndef GARRAYELEMENTWISEOPS_TD
#define GARRAYELEMENTWISEOPS_TD

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
// Compare and select (the forms the elementwise family specifies; added here
// first because argmax/argmin decompose into them).
//===----------------------------------------------------------------------===//

def GArray_CompareOp : GArray_Op<"compare", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Elementwise comparison, giving i1";
  let description = [{
    ```mlir
    %m = garray.compare <lt> %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    ```
    Directions `eq`, `ne`, `lt`, `le`, `gt`, `ge`. Floats: `eq`, `lt`, `le`,
    `gt`, `ge` are *ordered* (false when either side is NaN) and `ne` is
    *unordered* (true when either side is NaN), as in C, so `x != x` finds
    NaNs. Integers compare signed; `i1` compares unsigned (false < true).
    Pending partial values are reduced first.

    **Constraints:**
    - `compare_c1`: both operands have the same type;
    - `compare_c2`: the result is `i1` with the operands' shape.
  }];
  let arguments = (ins GArray_ComparisonDirectionAttr:$direction, GArray_Tensor:$lhs,
                       GArray_Tensor:$rhs);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = [{
    $direction $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def GArray_SelectOp : GArray_Op<"select", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Elementwise choice: pred ? on_true : on_false";
  let description = [{
    ```mlir
    %r = garray.select %pred, %a, %b : tensor<8xi1>, tensor<8xf32>
    ```
    The types after the colon are the predicate's and the values' (both
    values and the result have that type). Pending partial values are reduced
    first.

    **Constraints:**
    - `select_c1`: the predicate's element type is `i1`;
    - `select_c2`: the predicate has the result's shape;
    - `select_c3`: `on_true`, `on_false` and the result have the same type.
  }];
  let arguments = (ins GArray_Tensor:$pred, GArray_Tensor:$on_true, GArray_Tensor:$on_false);
  let results = (outs GArray_Tensor:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

#endif
