//===- GArrayElementwiseOps.td - elementwise garray ops -*- tablegen -*-===//
//
// Included from GArrayOps.td; shares its GArray_Op / GArray_Tensor classes.
//
// Every op here computes each result element from the operand elements at
// the same index, so every op has the elementwise factor rule: all operands
// and the result share one factor per dimension, and any dimension may stay
// sharded. What differs between ops is which element types they accept
// (`<op>_c2`) and how pending partial values pass through them (PendingFlow
// in sharding/FactorRule.h; the rules are in FactorRules.cpp).
//
// Types are written once when operands and result share them
// (`: tensor<8x4xf32>`), and as a function type otherwise
// (`: (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xi1>`); both forms
// parse for every op, so an ill-typed op reaches its labelled verifier
// instead of failing in the parser.
//
//===----------------------------------------------------------------------===//
#ifndef GARRAYELEMENTWISEOPS_TD
#define GARRAYELEMENTWISEOPS_TD

//===----------------------------------------------------------------------===//
// Element types an op computes on (checked as `<op>_c2`).
//===----------------------------------------------------------------------===//

class GArray_ElementKinds<string cppName, string docText, string example> {
  // An enumerator of mlir::garray::ElementKinds (ElementwiseUtils.h).
  string cpp = cppName;
  string doc = docText;
  string exampleType = example;
}

def GArray_AnyElements : GArray_ElementKinds<"Any", "", "tensor<8x4xf32>">;
def GArray_FloatElements : GArray_ElementKinds<"Float",
    "a float (f16, bf16, f32, f64)", "tensor<8x4xf32>">;
def GArray_NumberElements : GArray_ElementKinds<"Number",
    "a float or an integer wider than i1 (booleans take `and`, `or`, `xor`, "
    "`not`, `max`, `min`)", "tensor<8x4xf32>">;
def GArray_IntegerElements : GArray_ElementKinds<"Integer",
    "an integer, i1 included", "tensor<8x4xi1>">;

// The verifier every same-typed elementwise op shares: one type for operands
// and result (`_c1`), then the element kinds (`_c2`).
class GArray_SameTypeElementwiseOp<string mnemonic, GArray_ElementKinds kinds,
    string semantics, string flowDoc, string example>
    : GArray_Op<mnemonic, [Pure, DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "elementwise " # mnemonic;
  let description = semantics # "\n\n```mlir\n" # example # "\n```\n\n"
    # "Pending partial values: " # flowDoc # ".\n\n"
    # "**Constraints:**\n"
    # "- `" # mnemonic # "_c1`: the operands and the result have one type "
    # "(shape and element type; use `broadcast_in_dim` or `convert` first);\n"
    # !if(!eq(kinds.cpp, "Any"), "",
          "- `" # mnemonic # "_c2`: the element type is " # kinds.doc # ".\n");
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::mlir::garray::verifySameTypeElementwise(
          *this, ::mlir::garray::ElementKinds::}] # kinds.cpp # [{);
    }
  }];
}

class GArray_UnaryOp<string mnemonic, GArray_ElementKinds kinds, string semantics,
                     string flowDoc = "reduced first">
    : GArray_SameTypeElementwiseOp<mnemonic, kinds, semantics, flowDoc,
        "%r = garray." # mnemonic # " %x : " # kinds.exampleType> {
  let arguments = (ins GArray_SameAsResultTensor:$operand,
                       GArray_PropertyStorage:$property_storage);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = [{
    $operand attr-dict `:` custom<ElementwiseTypes>(type($operand), type($result))
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$operand), [{
      build($_builder, $_state, operand.getType(), operand, ::mlir::UnitAttr());
    }]>,
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$operand), [{
      build($_builder, $_state, result, operand, ::mlir::UnitAttr());
    }]>];
}

class GArray_BinaryOp<string mnemonic, GArray_ElementKinds kinds, string semantics,
                      string flowDoc = "reduced first">
    : GArray_SameTypeElementwiseOp<mnemonic, kinds, semantics, flowDoc,
        "%r = garray." # mnemonic # " %a, %b : " # kinds.exampleType> {
  let arguments = (ins GArray_SameAsResultTensor:$lhs, GArray_SameAsResultTensor:$rhs,
                       GArray_PropertyStorage:$property_storage);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` custom<ElementwiseTypes>(type($lhs), type($rhs), type($result))
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$lhs, "::mlir::Value":$rhs), [{
      build($_builder, $_state, lhs.getType(), lhs, rhs, ::mlir::UnitAttr());
    }]>,
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$lhs, "::mlir::Value":$rhs), [{
      build($_builder, $_state, result, lhs, rhs, ::mlir::UnitAttr());
    }]>];
}

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

def GArray_AbsOp : GArray_UnaryOp<"abs", GArray_NumberElements,
    "Absolute value. On integers the most negative value maps to itself "
    "(two's complement), as in XLA.">;
def GArray_CeilOp : GArray_UnaryOp<"ceil", GArray_FloatElements,
    "The smallest integral value not below `x`.">;
def GArray_CosOp : GArray_UnaryOp<"cos", GArray_FloatElements, "Cosine (radians).">;
def GArray_ExpOp : GArray_UnaryOp<"exp", GArray_FloatElements, "`e` to the power `x`.">;
def GArray_Expm1Op : GArray_UnaryOp<"expm1", GArray_FloatElements,
    "`exp(x) - 1`, accurate near zero.">;
def GArray_FloorOp : GArray_UnaryOp<"floor", GArray_FloatElements,
    "The largest integral value not above `x`.">;
def GArray_LogOp : GArray_UnaryOp<"log", GArray_FloatElements,
    "Natural logarithm; NaN below zero, -inf at zero.">;
def GArray_Log1pOp : GArray_UnaryOp<"log1p", GArray_FloatElements,
    "`log(1 + x)`, accurate near zero; NaN below -1.">;
def GArray_LogisticOp : GArray_UnaryOp<"logistic", GArray_FloatElements,
    "The logistic sigmoid `1 / (1 + exp(-x))`.">;
def GArray_NegOp : GArray_UnaryOp<"neg", GArray_NumberElements,
    "Negation (`0 - x` on integers, wrapping).", "stay pending (linear)">;
def GArray_NotOp : GArray_UnaryOp<"not", GArray_IntegerElements,
    "Bitwise complement; logical negation on i1.">;
def GArray_RoundOp : GArray_UnaryOp<"round", GArray_FloatElements,
    "The nearest integral value, halves to even (as `jnp.round`): 0.5 -> 0, "
    "1.5 -> 2, -2.5 -> -2.">;
def GArray_RsqrtOp : GArray_UnaryOp<"rsqrt", GArray_FloatElements,
    "Reciprocal square root `1 / sqrt(x)`.">;
def GArray_SignOp : GArray_UnaryOp<"sign", GArray_NumberElements,
    "-1, 0 or 1 by the sign of `x`; on floats, NaN and signed zeros map to "
    "themselves.">;
def GArray_SinOp : GArray_UnaryOp<"sin", GArray_FloatElements, "Sine (radians).">;
def GArray_StopGradientOp : GArray_UnaryOp<"stop_gradient", GArray_AnyElements,
    "The operand, unchanged; no gradient flows back through it (as "
    "`jax.lax.stop_gradient`). A stable log-softmax shifts by the row maximum "
    "under it: the shift cancels in the value, so its gradient is zero in "
    "exact arithmetic, and without it the backward pass would differentiate "
    "the maximum (a tie count and a cotangent, each reduced across devices "
    "when the row is sharded) only to add about zero. garray-autodiff "
    "replaces every `stop_gradient` by its operand once it has differentiated "
    "the module.", "stay pending (linear)">;
def GArray_SqrtOp : GArray_UnaryOp<"sqrt", GArray_FloatElements,
    "Square root; NaN below zero.">;
def GArray_TanhOp : GArray_UnaryOp<"tanh", GArray_FloatElements, "Hyperbolic tangent.">;

def GArray_ClampOp : GArray_SameTypeElementwiseOp<"clamp", GArray_NumberElements,
    "`min(max(x, lo), hi)` with `lo` and `hi` full-shape arrays (broadcast them "
    "first); where `lo > hi` the result is `hi`, as XLA's clamp. NaN in any "
    "operand gives NaN.",
    "reduced first", "%r = garray.clamp %lo, %x, %hi : tensor<8x4xf32>"> {
  let arguments = (ins GArray_Tensor:$lo, GArray_Tensor:$operand, GArray_Tensor:$hi,
                       GArray_PropertyStorage:$property_storage);
  let builders = [OpBuilder<(ins "::mlir::Type":$result,
                                 "::mlir::Value":$lo, "::mlir::Value":$operand,
                                 "::mlir::Value":$hi), [{
    build($_builder, $_state, result, lo, operand, hi, ::mlir::UnitAttr());
  }]>];
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = [{
    $lo `,` $operand `,` $hi attr-dict `:`
    custom<ElementwiseTypes>(type($lo), type($operand), type($hi), type($result))
  }];
}

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

def GArray_AddOp : GArray_BinaryOp<"add", GArray_NumberElements,
    "Sum (wrapping on integers).",
    "stay pending when both are pending sums over the same axes, or one is "
    "and the other is all zeros (garray::isAllZeros)">;
def GArray_AndOp : GArray_BinaryOp<"and", GArray_IntegerElements,
    "Bitwise and; logical and on i1.">;
def GArray_DivOp : GArray_BinaryOp<"div", GArray_NumberElements,
    "Quotient. Floats follow IEEE 754. Integers truncate toward zero and never "
    "trap, as in XLA: `x / 0` is -1 and the most negative value divided by -1 "
    "is itself.",
    "on floats, a pending sum divided by a reduced value stays pending; integer "
    "division truncates, so it is not linear and reduces first">;
def GArray_MaxOp : GArray_BinaryOp<"max", GArray_AnyElements,
    "The larger operand; a NaN operand gives NaN (as JAX's `maximum`). On i1 "
    "it is logical or.",
    "stay pending when both are pending maxima over the same axes">;
def GArray_MinOp : GArray_BinaryOp<"min", GArray_AnyElements,
    "The smaller operand; a NaN operand gives NaN (as JAX's `minimum`). On i1 "
    "it is logical and.",
    "stay pending when both are pending minima over the same axes">;
def GArray_MulOp : GArray_BinaryOp<"mul", GArray_NumberElements,
    "Product (wrapping on integers).",
    "one pending sum times a reduced value stays pending">;
def GArray_OrOp : GArray_BinaryOp<"or", GArray_IntegerElements,
    "Bitwise or; logical or on i1.">;
def GArray_PowOp : GArray_BinaryOp<"pow", GArray_FloatElements,
    "`lhs` to the power `rhs`, as C's `pow`.">;
def GArray_RemOp : GArray_BinaryOp<"rem", GArray_NumberElements,
    "Remainder of truncating division, with the sign of `lhs` (C's `fmod` and "
    "`%`). Integers never trap, as in XLA: `x rem 0` is `x` and the most "
    "negative value rem -1 is 0.">;
def GArray_ShiftLeftOp : GArray_BinaryOp<"shift_left", GArray_IntegerElements,
    "`lhs` shifted left by `rhs` bits, zeros shifted in. A shift amount "
    "outside [0, bit width), read as unsigned, gives 0 (StableHLO's "
    "`shift_left`; LLVM's `shl` would give poison).">;
def GArray_ShiftRightArithmeticOp : GArray_BinaryOp<"shift_right_arithmetic",
    GArray_IntegerElements,
    "`lhs` shifted right by `rhs` bits, copies of the sign bit shifted in. A "
    "shift amount outside [0, bit width), read as unsigned, gives -1 for a "
    "negative `lhs` and 0 otherwise (StableHLO's `shift_right_arithmetic`).">;
def GArray_ShiftRightLogicalOp : GArray_BinaryOp<"shift_right_logical",
    GArray_IntegerElements,
    "`lhs`, read as unsigned, shifted right by `rhs` bits, zeros shifted in. "
    "A shift amount outside [0, bit width), read as unsigned, gives 0 "
    "(StableHLO's `shift_right_logical`). With `xor`, `or` and wrapping "
    "`add`, the ops counter-based random number generators (JAX's threefry) "
    "are made of.">;
def GArray_SubOp : GArray_BinaryOp<"sub", GArray_NumberElements,
    "Difference (wrapping on integers).",
    "stay pending when both are pending sums over the same axes, or one is "
    "and the other is all zeros (garray::isAllZeros)">;
def GArray_XorOp : GArray_BinaryOp<"xor", GArray_IntegerElements,
    "Bitwise exclusive or; logical xor on i1.">;

//===----------------------------------------------------------------------===//
// Compare, select, convert: the result type differs from an operand's.
//===----------------------------------------------------------------------===//

def GArray_ComparisonDirection : I32EnumAttr<"ComparisonDirection",
    "how garray.compare relates lhs to rhs", [
    I32EnumAttrCase<"eq", 0>,
    I32EnumAttrCase<"ne", 1>,
    I32EnumAttrCase<"lt", 2>,
    I32EnumAttrCase<"le", 3>,
    I32EnumAttrCase<"gt", 4>,
    I32EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::mlir::garray";
  let genSpecializedAttr = 0;
}

def GArray_ComparisonDirectionAttr : EnumAttr<GArray_Dialect, GArray_ComparisonDirection,
    "comparison"> {
  let assemblyFormat = "`<` $value `>`";
}

def GArray_CompareOp : GArray_Op<"compare", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Elementwise comparison, giving i1";
  let description = [{
    `lhs <direction> rhs` per element. Floats compare as IEEE 754 does: every
    comparison with a NaN is false except `ne`, which is true. Integers
    compare as signed values; on i1, false < true.

    ```mlir
    %m = garray.compare <lt> %a, %b : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xi1>
    ```
    Pending partial values: branches that are pending sums over the same
    axes stay pending (summed over devices, select(p, a, b) is
    select(p, sum a, sum b)), and a branch of all zeros need not be pending
    (`select %p, %x, %zeros`).

    **Constraints:**
    - `compare_c1`: `lhs` and `rhs` have one type;
    - `compare_c2`: the result has the operands' shape;
    - `compare_c3`: the result's element type is i1.
  }];
  let arguments = (ins GArray_ComparisonDirectionAttr:$direction, GArray_Tensor:$lhs,
                       GArray_Tensor:$rhs);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = [{
    $direction $lhs `,` $rhs attr-dict `:`
    custom<ElementwiseTypes>(type($lhs), type($rhs), type($result))
  }];
  let hasVerifier = 1;
}

def GArray_SelectOp : GArray_Op<"select", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Elementwise choice between two arrays";
  let description = [{
    `pred ? on_true : on_false` per element. Both branches are computed
    (they are values), so `select` masks results but does not guard a
    computation: a NaN in the branch not taken never reaches the result.

    ```mlir
    %r = garray.select %m, %a, %b : (tensor<8x4xi1>, tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    ```
    Pending partial values: reduced first.

    **Constraints:**
    - `select_c1`: `pred` has element type i1;
    - `select_c2`: `pred` has the result's shape;
    - `select_c3`: `on_true`, `on_false` and the result have one type.
  }];
  let arguments = (ins GArray_Tensor:$pred, GArray_Tensor:$on_true, GArray_Tensor:$on_false,
                       GArray_PropertyStorage:$property_storage);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = [{
    $pred `,` $on_true `,` $on_false attr-dict `:`
    custom<ElementwiseTypes>(type($pred), type($on_true), type($on_false), type($result))
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$pred, "::mlir::Value":$on_true, "::mlir::Value":$on_false), [{
      build($_builder, $_state, on_true.getType(), pred, on_true, on_false, ::mlir::UnitAttr());
    }]>,
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$pred, "::mlir::Value":$on_true,
                   "::mlir::Value":$on_false), [{
      build($_builder, $_state, result, pred, on_true, on_false, ::mlir::UnitAttr());
    }]>];
}

def GArray_ConvertOp : GArray_Op<"convert", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Elementwise change of element type";
  let description = [{
    Converts every element to the result's element type. A conversion that
    keeps every value exactly is always allowed; one that can lose
    information must say so with `lossy`.

    ```mlir
    %d = garray.convert %x : (tensor<8x4xf32>) -> tensor<8x4xf64>
    %h = garray.convert %x lossy : (tensor<8x4xf32>) -> tensor<8x4xbf16>
    %i = garray.convert %x lossy : (tensor<8x4xf32>) -> tensor<8x4xi32>
    ```
    Exact: to the same type; i1 to anything; an integer to a wider integer
    (sign-extended); an n-bit integer to a float whose significand holds
    n - 1 bits (i8 to bf16, i16 to f32, i32 to f64); a float to a float that
    holds all its values (f16 or bf16 to f32, f32 to f64).

    Lossy, and what happens: float to float rounds to nearest even (f16 and
    bf16 convert through f32, rounding once) and overflows to infinity;
    integer to float rounds to nearest even; integer to a narrower integer
    keeps the low bits; float to integer truncates toward zero and saturates
    (out-of-range values give the integer's limits and NaN gives 0, the
    semantics of LLVM's `fptosi.sat`); to i1 is `x != 0` (a NaN is true, as
    NumPy's `astype(bool)`).

    Pending partial values: reduced first (a sum of converted partials is
    not the converted sum once rounding is involved).

    **Constraints:**
    - `convert_c1`: the operand and the result have one shape;
    - `convert_c2`: the conversion keeps every value exactly, unless
      `lossy` is given.
  }];
  let arguments = (ins GArray_Tensor:$operand, UnitAttr:$lossy);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = [{
    $operand (`lossy` $lossy^)? attr-dict `:` custom<ElementwiseTypes>(type($operand), type($result))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether converting every value of `from` to `to` is exact (see the
    /// description for the table).
    static bool isExact(::mlir::Type from, ::mlir::Type to);
  }];
}

def GArray_BitcastConvertOp : GArray_Op<"bitcast_convert", [Pure,
    DeclareOpInterfaceMethods<GArray_ShardingRuleOpInterface>]> {
  let summary = "Elementwise reinterpretation of the bits as another type";
  let description = [{
    Each element's bits, unchanged, read as the result's element type, which
    has the same width: i32 and f32, i64 and f64 (and a type to itself).
    JAX builds uniform floats this way from random bits.

    ```mlir
    %f = garray.bitcast_convert %bits : (tensor<8x4xi32>) -> tensor<8x4xf32>
    ```

    Pending partial values: reduced first.

    **Constraints:**
    - `bitcast_convert_c1`: the operand and the result have one shape;
    - `bitcast_convert_c2`: their element types have the same bit width
      (neither is i1).
  }];
  let arguments = (ins GArray_Tensor:$operand);
  let results = (outs GArray_Tensor:$result);
  let assemblyFormat = [{
    $operand attr-dict `:` custom<ElementwiseTypes>(type($operand), type($result))
  }];
  let hasVerifier = 1;
}

#endif
