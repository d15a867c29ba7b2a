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

#endif
