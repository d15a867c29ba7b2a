//===- GArrayReductionOps.td - contractions and reductions -*- tablegen -*-===//
//
// Included from GArrayOps.td; shares its GArray_Op / GArray_Tensor classes.
//
//===----------------------------------------------------------------------===//
#ifndef GARRAYREDUCTIONOPS_TD
#define GARRAYREDUCTIONOPS_TD

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

#endif
